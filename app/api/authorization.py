"""The route table: per API endpoint, what the caller needs, which audited change it
attempts and what it answers when that change commits. The facts about a route live here,
once; authorization, the audit trail's refused attempts (attempts.py) and the origin a
committed change records (app/api/origin.py) all read them by endpoint name.

What a caller needs is decided from the route and its query flags alone, before any
lookup: a 403 never depends on whether the subject exists.

The table names, per endpoint, the core `Action` the caller needs and on what: the subject
in the path (qualified by the `/contexts/{ctx}/...` rewrite before routing, so both forms
check the context), the settings the URL addresses (the server's, a context's or a
subject's), a context being deleted, or the server itself. The API blueprint runs
`authorize_request` after authentication, the media type checks and the path parameter
checks; the service's authorizer answers, so with no auth file (`AllowAll`) the table costs
nothing, and the core asks the same authorizer again about the subject an operation really
touches (an alias's target, each holder of an id, every referenced subject) and filters the
listings.

| Endpoints | Needs |
|---|---|
| `/`, `/v1/metadata/*`, `/schemas/types`, `GET /subjects`, `GET /schemas`, `GET /contexts`, the schema-by-id, GUID and fingerprint reads | nothing beyond authentication (lists filtered, by-id reads answered only from readable holders, by the core) |
| subject reads, lookup, compatibility checks, `/impact/subjects/{s}` | READ on the subject (impact lists only the referrers the caller may read) |
| `POST /subjects/{s}/versions`, tag edits | WRITE (with `force=true`: ADMIN) |
| `DELETE /subjects/{s}[/versions/{v}]` | DELETE (with `permanent=true`: ADMIN) |
| `GET /config[/{s}]`, `GET /mode[/{s}]` | READ_CONFIG on the settings addressed |
| `PUT`/`DELETE /config[/{s}]`, `PUT`/`DELETE /mode[/{s}]` | WRITE_CONFIG on the settings addressed |
| `DELETE /contexts/{c}` | DELETE on the context |
| `GET /dek-registry/v1/keks` | authentication (the core lists the KEKs the caller may read, of contexts it sees) |
| a KEK's reads, `POST /keks/{name}/test`, its DEK subjects | READ on the KEK (the core; subjects filtered) |
| KEK create, update, delete, undelete | ADMIN on the KEK (the core) |
| a DEK's reads / create / delete and undelete | READ / WRITE / DELETE on its subject (permanent: ADMIN) and its KEK |
| `/associations` reads (by subject, resource id or name, `:batchGet`) | nothing beyond authentication (associations of subjects the caller may not read left out) |
| `/associations` changes (`POST`, `PUT`, `DELETE`, `:batchMutate`) | WRITE on each subject touched (a cascading delete of a STRONG association: ADMIN on it), checked by the core |
| anything not listed (a route added later) | ADMIN on the server, until someone decides |

The authorizer turns actions into roles (`app.security.authorizer`); an address without a
subject name (the server's or a context's settings, a context) needs a global grant.

A write method (POST, PUT, PATCH, DELETE) that matched no endpoint at all (a routing 404 or
405) attempted no change the table knows: the trail records it as `UNKNOWN_OPERATION`.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from flask import request

from app.api.paths import normalized_context
from app.api.requests import flag
from app.api.service import registry
from app.core import audit
from app.core.access import Action
from app.security.caller import current_principal

# The parent blueprint's name; its endpoints, and those of the blueprints nested in it,
# are named `api.<area>.<view>`.
API_BLUEPRINT = "api"
# Methods that ask for a change; a POST may still be a read (a lookup, a compatibility check).
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})

Target = Callable[[Mapping[str, Any]], str]


def _server(args: Mapping[str, Any]) -> str:
    return ""


def _subject(args: Mapping[str, Any]) -> str:
    return str(args["subject"])


def _settings(args: Mapping[str, Any]) -> str:
    """The global URL (`subject` None) addresses the server's settings; `:.ctx:` a context's."""
    return args.get("subject") or ""


def _context(args: Mapping[str, Any]) -> str:
    return f":{normalized_context(str(args['context']))}:"


@dataclass(frozen=True)
class Rule:
    """One endpoint's facts. `action` None: any caller who got past authentication.
    `admin_flag` names the query flag that, when true, makes the call an administrator's
    (`force`, `permanent`). `audited`: the audit action of the change the endpoint makes
    (None for reads, lookups and checks, which the trail does not record).
    `success_status`: what the endpoint answers when its change commits, which the change's
    audit row records."""

    action: Action | None
    target: Target = _server
    admin_flag: str | None = None
    audited: str | None = None
    success_status: int = 200

    def needs(self, args: Mapping[str, Any], flagged: Callable[[str], bool] = flag) -> tuple[Action, str] | None:
        """`flagged` reads a query flag (the request's; a request without a query string has none)."""
        if self.action is None:
            return None
        action = Action.ADMIN if self.admin_flag and flagged(self.admin_flag) else self.action
        return action, self.target(args)


AUTHENTICATED = Rule(None)
READ = Rule(Action.READ, _subject)

# Endpoint names inside the API blueprint: `<area blueprint>.<view function>`.
RULES: dict[str, Rule] = {
    "server.root": AUTHENTICATED,
    "server.root_post": AUTHENTICATED,
    "server.cluster_id": AUTHENTICATED,
    "server.server_version": AUTHENTICATED,
    "server.deployment": AUTHENTICATED,
    "schemas.schema_types": AUTHENTICATED,
    "schemas.list_schemas": AUTHENTICATED,
    "schemas.schema_by_id": AUTHENTICATED,
    "schemas.raw_schema_by_id": AUTHENTICATED,
    "schemas.subjects_for_id": AUTHENTICATED,
    "schemas.versions_for_id": AUTHENTICATED,
    "schemas.schema_by_guid": AUTHENTICATED,
    "schemas.ids_for_guid": AUTHENTICATED,
    "schemas.schema_by_fingerprint": AUTHENTICATED,
    "subjects.list_subjects": AUTHENTICATED,
    "contexts.list_contexts": AUTHENTICATED,
    "subjects.lookup": READ,
    "subjects.latest_with_metadata": READ,
    "subjects.list_versions": READ,
    "subjects.get_version": READ,
    "subjects.get_raw_version": READ,
    "subjects.referenced_by": READ,
    "compatibility.check_against_all": READ,
    "compatibility.check_against_one": READ,
    # Impact (an extension): reads only; the referrers listed are those the caller may read.
    "impact.subject_impact": READ,
    "impact.candidate_impact": READ,
    "subjects.register": Rule(Action.WRITE, _subject, admin_flag="force", audited=audit.REGISTER),
    # The tags endpoint registers a version.
    "tags.modify_tags": Rule(Action.WRITE, _subject, audited=audit.REGISTER),
    "subjects.delete_subject": Rule(Action.DELETE, _subject, admin_flag="permanent", audited=audit.DELETE_SUBJECT),
    "subjects.delete_version": Rule(Action.DELETE, _subject, admin_flag="permanent", audited=audit.DELETE_VERSION),
    "config.get_config": Rule(Action.READ_CONFIG, _settings),
    "config.put_config": Rule(Action.WRITE_CONFIG, _settings, audited=audit.SET_CONFIG),
    "config.delete_config": Rule(Action.WRITE_CONFIG, _settings, audited=audit.DELETE_CONFIG),
    "mode.get_mode": Rule(Action.READ_CONFIG, _settings),
    "mode.put_mode": Rule(Action.WRITE_CONFIG, _settings, audited=audit.SET_MODE),
    "mode.delete_mode": Rule(Action.WRITE_CONFIG, _settings, audited=audit.DELETE_MODE),
    "contexts.delete_context": Rule(Action.DELETE, _context, audited=audit.DELETE_CONTEXT, success_status=204),
    "audit.list_audit": Rule(Action.ADMIN, _server),
    # Schema policies: read like config, written like config (admin on the subject,
    # or global admin for the global document and a context's selection).
    "policies.get_policies": AUTHENTICATED,
    "policies.put_policies": Rule(Action.WRITE_CONFIG, _server, audited=audit.SET_POLICY),
    "policies.delete_policies": Rule(Action.WRITE_CONFIG, _server, audited=audit.DELETE_POLICY),
    "policies.get_selection": Rule(Action.READ_CONFIG, _settings),
    "policies.put_selection": Rule(Action.WRITE_CONFIG, _settings, audited=audit.SET_POLICY),
    "policies.delete_selection": Rule(Action.WRITE_CONFIG, _settings, audited=audit.DELETE_POLICY),
    "policies.check": READ,
    "policies.policy_rules": AUTHENTICATED,
    # The DEK registry: a KEK is held by those granted it (the auth file's `keks`), which
    # the core checks (`check_kek`: the KEK's context is a query parameter or the subject's);
    # a DEK needs its subject's grant here and its KEK's in the core. A DEK created with the
    # subject in the body is checked (WRITE) by the core, which reads the body.
    "dek_registry.list_keks": AUTHENTICATED,
    "dek_registry.get_kek": AUTHENTICATED,
    # Testing a KEK changes nothing: it needs what reading it needs, and is no audited change.
    "dek_registry.test_kek": AUTHENTICATED,
    "dek_registry.create_kek": Rule(None, audited=audit.CREATE_KEK),
    "dek_registry.update_kek": Rule(None, audited=audit.UPDATE_KEK),
    "dek_registry.delete_kek": Rule(None, audited=audit.DELETE_KEK, success_status=204),
    "dek_registry.undelete_kek": Rule(None, audited=audit.UNDELETE_KEK, success_status=204),
    "dek_registry.list_dek_subjects": AUTHENTICATED,
    "dek_registry.create_dek": Rule(None, audited=audit.CREATE_DEK),
    "dek_registry.create_dek_for_subject": Rule(Action.WRITE, _subject, audited=audit.CREATE_DEK),
    "dek_registry.get_dek": READ,
    "dek_registry.list_dek_versions": READ,
    "dek_registry.get_dek_version": READ,
    "dek_registry.delete_dek": Rule(
        Action.DELETE, _subject, admin_flag="permanent", audited=audit.DELETE_DEK, success_status=204),
    "dek_registry.delete_dek_version": Rule(
        Action.DELETE, _subject, admin_flag="permanent", audited=audit.DELETE_DEK, success_status=204),
    "dek_registry.undelete_dek": Rule(Action.DELETE, _subject, audited=audit.UNDELETE_DEK, success_status=204),
    "dek_registry.undelete_dek_version": Rule(
        Action.DELETE, _subject, audited=audit.UNDELETE_DEK, success_status=204),
    # Associations: reads are anyone's who authenticated (the core leaves out what the caller may
    # not read, so a producer's lookup never meets a 403); changes need WRITE on each subject
    # touched (ADMIN on a STRONG one's subject when a delete cascades), checked by the core,
    # which learns the subjects from the body or the stored associations.
    "associations.associations_by_subject": AUTHENTICATED,
    "associations.associations_by_resource_id": AUTHENTICATED,
    "associations.associations_by_resource_name": AUTHENTICATED,
    "associations.batch_get_associations": AUTHENTICATED,
    "associations.create_association": Rule(None, audited=audit.CREATE_ASSOCIATION),
    "associations.upsert_association": Rule(None, audited=audit.UPDATE_ASSOCIATION),
    "associations.delete_associations": Rule(None, audited=audit.DELETE_ASSOCIATION, success_status=204),
    "associations.mutate_associations": Rule(None, audited=audit.MUTATE_ASSOCIATIONS, success_status=207),
    # Exporters: a server administrator's only (their config holds another registry's credentials).
    "exporters.list_exporters": Rule(Action.ADMIN, _server),
    "exporters.get_exporter": Rule(Action.ADMIN, _server),
    "exporters.exporter_status": Rule(Action.ADMIN, _server),
    "exporters.get_exporter_config": Rule(Action.ADMIN, _server),
    "exporters.create_exporter": Rule(Action.ADMIN, _server, audited=audit.CREATE_EXPORTER),
    "exporters.update_exporter": Rule(Action.ADMIN, _server, audited=audit.UPDATE_EXPORTER),
    "exporters.put_exporter_config": Rule(Action.ADMIN, _server, audited=audit.UPDATE_EXPORTER),
    "exporters.delete_exporter": Rule(Action.ADMIN, _server, audited=audit.DELETE_EXPORTER, success_status=204),
    "exporters.pause_exporter": Rule(Action.ADMIN, _server, audited=audit.PAUSE_EXPORTER),
    "exporters.resume_exporter": Rule(Action.ADMIN, _server, audited=audit.RESUME_EXPORTER),
    "exporters.reset_exporter": Rule(Action.ADMIN, _server, audited=audit.RESET_EXPORTER),
}

# A route nobody has put in the table is refused to all but the server's administrators.
UNLISTED = Rule(Action.ADMIN, _server)


def rule_for(endpoint: str) -> Rule:
    return RULES.get(endpoint.removeprefix(API_BLUEPRINT + "."), UNLISTED)


def authorize_request() -> None:
    """The API blueprint's `before_request` hook: 403/40301 unless the caller may."""
    need = rule_for(request.endpoint or "").needs(request.view_args or {})
    if need is not None:
        registry().authorizer.check(current_principal(), *need)
