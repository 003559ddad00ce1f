"""Who may give a registration its schema id (IMPORT mode), and which ids it may give.

Ids belong to a context, not to a subject: an imported id is taken from every subject of the
context, and it moves the context's allocator past it (so that the ids a migrated registry
issued stay unique after the move). Both make an explicit id a context-wide act, which only
an administrator of the whole context may perform, and put the highest ids out of an
import's reach, so that no import can leave the allocator without ids for later
registrations (`Settings.max_imported_id`, REGISTRY_MAX_IMPORTED_ID).
"""
from __future__ import annotations

from app.core.access import Guard
from app.core.errors import InvalidSchema
from app.core.types import QualifiedSubject


def check_explicit_id(guard: Guard, qs: QualifiedSubject, schema_id: int, highest: int) -> None:
    """Refuse (40301) a caller who does not administer all of the subject's context, then
    (42201) an id above `highest`, the largest id an import may set."""
    guard.check_context_admin(qs.context)
    if schema_id > highest:
        raise InvalidSchema(
            f"Schema id {schema_id} is above {highest}, the highest id an import may set "
            "(REGISTRY_MAX_IMPORTED_ID): ids above it are kept for the registry's own allocation, "
            "which an imported id moves past"
        )
