"""PostgreSQL: every committed change to the registry's tables sends NOTIFY on the change
channel, from statement-level triggers, instead of a NOTIFY statement the registry sends at
the end of each write transaction

The trigger saves that statement's round trip on every write, and it also speaks for writes
that do not come through the registry (a restore, an operator's UPDATE), which the
registry's own NOTIFY never covered. PostgreSQL delivers notifications at commit, drops
them on rollback, and folds identical ones within a transaction into one. SQLite has no
listeners (its change token is host-local), so nothing changes there.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-25
"""
from __future__ import annotations

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

# Must equal app.storage.changes.CHANNEL; written out so the migration keeps its meaning.
CHANNEL = "sqlregistry_changes"
FUNCTION = "sqlregistry_notify_change"
TABLES = ("subjects", "schemas", "subject_versions", "schema_references", "schema_fingerprints", "contexts",
          "id_counter")


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(f"""
        CREATE FUNCTION {FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('{CHANNEL}', '');
            RETURN NULL;
        END
        $$""")
    for table in TABLES:
        op.execute(
            f"CREATE TRIGGER {table}_notify_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON {table} "
            f"FOR EACH STATEMENT EXECUTE FUNCTION {FUNCTION}()"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table in TABLES:
        op.execute(f"DROP TRIGGER {table}_notify_change ON {table}")
    op.execute(f"DROP FUNCTION {FUNCTION}()")
