"""Grant matching: which principals a grant names, which subjects and contexts it reaches, and
which role each core action needs (app.security.authorizer)."""
from __future__ import annotations

import pytest

from app.core.access import Action
from app.core.errors import Forbidden
from app.security.authorizer import GrantAuthorizer
from app.security.records import AuthFile
from support.grants import ANONYMOUS_CALLER, EXAMPLE, auth_file, grant, user


def allowed(file: AuthFile | None, principal, action: Action, subject: str) -> bool:
    try:
        GrantAuthorizer(lambda: file).check(principal, action, subject)
    except Forbidden:
        return False
    return True


def refusal(file: AuthFile, principal, action: Action, subject: str) -> Forbidden:
    with pytest.raises(Forbidden) as raised:
        GrantAuthorizer(lambda: file).check(principal, action, subject)
    return raised.value


# ---------------------------------------------------------------- principals
@pytest.mark.parametrize(("principal", "expected"), [
    (user("alice"), True),
    (user("bob"), False),
    (user("bob", "alice"), False),  # a group named like the user is not the user
    (ANONYMOUS_CALLER, False),
])
def test_a_user_grant_names_one_user(principal, expected) -> None:
    file = auth_file(grant("user:alice", "read", "*"))
    assert allowed(file, principal, Action.READ, "orders-value") is expected


@pytest.mark.parametrize(("principal", "expected"), [
    (user("carol", "payments"), True),
    (user("carol", "billing", "payments"), True),
    (user("carol", "billing"), False),
    (user("payments"), False),  # a user named like the group is not in it
])
def test_a_group_grant_reaches_the_callers_groups(principal, expected) -> None:
    file = auth_file(grant("group:payments", "read", "*"))
    assert allowed(file, principal, Action.READ, "orders-value") is expected


@pytest.mark.parametrize(("principal", "expected"), [
    (user("anyone"), True),
    (user("anyone", method="bearer"), True),
    (user("anyone", method="mtls"), True),
    (ANONYMOUS_CALLER, False),
])
def test_star_is_any_authenticated_caller_but_not_the_anonymous_one(principal, expected) -> None:
    file = auth_file(grant("*", "read", "*"))
    assert allowed(file, principal, Action.READ, "orders-value") is expected


def test_an_anonymous_grant_is_the_anonymous_callers_alone() -> None:
    file = auth_file(grant("anonymous", "read", "prefix:public."), allow_anonymous=True)
    assert allowed(file, ANONYMOUS_CALLER, Action.READ, "public.orders")
    assert not allowed(file, ANONYMOUS_CALLER, Action.READ, "private.orders")
    assert not allowed(file, user("alice"), Action.READ, "public.orders")


def test_grants_of_a_user_its_groups_and_star_add_up() -> None:
    file = auth_file(
        grant("user:alice", "read", "exact:a"),
        grant("group:team", "write", "exact:b"),
        grant("*", "read", "exact:c"),
    )
    alice = user("alice", "team")
    assert [allowed(file, alice, Action.READ, s) for s in "abcd"] == [True, True, True, False]
    assert [allowed(file, alice, Action.WRITE, s) for s in "abc"] == [False, True, False]


# ---------------------------------------------------------------- roles and actions
@pytest.mark.parametrize(("role", "action", "expected"), [
    ("read", Action.READ, True),
    ("read", Action.READ_CONFIG, True),
    ("read", Action.WRITE, False),
    ("read", Action.DELETE, False),
    ("write", Action.READ, True),
    ("write", Action.WRITE, True),
    ("write", Action.DELETE, True),
    ("write", Action.ADMIN, False),
    ("write", Action.WRITE_CONFIG, False),
    ("admin", Action.READ, True),
    ("admin", Action.WRITE, True),
    ("admin", Action.DELETE, True),
    ("admin", Action.ADMIN, True),
    ("admin", Action.WRITE_CONFIG, True),
])
def test_each_role_includes_the_ones_below_it(role: str, action: Action, expected: bool) -> None:
    file = auth_file(grant("user:alice", role, "*"))
    assert allowed(file, user("alice"), action, "orders-value") is expected


def test_the_strongest_matching_grant_decides() -> None:
    file = auth_file(grant("user:alice", "read", "*"), grant("user:alice", "admin", "exact:mine"))
    assert allowed(file, user("alice"), Action.ADMIN, "mine")
    assert not allowed(file, user("alice"), Action.WRITE, "theirs")


# ---------------------------------------------------------------- subject patterns
@pytest.mark.parametrize(("patterns", "subject", "expected"), [
    (("*",), "anything-at-all", True),
    (("exact:orders-value",), "orders-value", True),
    (("exact:orders-value",), "orders-value2", False),
    (("exact:orders-value",), "orders", False),
    (("prefix:payments.",), "payments.orders-value", True),
    (("prefix:payments.",), "payments.", True),
    (("prefix:payments.",), "paymentsXorders", False),   # "." is a plain character, not a regex
    (("prefix:payments.",), "team.payments.orders", False),
    (("regex:^billing-(key|value)$",), "billing-key", True),
    (("regex:^billing-(key|value)$",), "billing-value", True),
    (("regex:^billing-(key|value)$",), "billing-keys", False),
    (("regex:orders",), "orders", True),
    (("regex:orders",), "my-orders-value", False),       # the whole name must match
    (("regex:orders.*",), "orders-value", True),
    (("regex:.*-value",), "orders-value", True),
    (("regex:.*-value",), "orders-value\n", False),      # fullmatch, not a `$` that allows a newline
    (("exact:a", "prefix:b", "regex:c+"), "ccc", True),  # any of the patterns
    (("exact:a", "prefix:b", "regex:c+"), "d", False),
])
def test_subject_patterns_match_the_unqualified_name(patterns, subject: str, expected: bool) -> None:
    file = auth_file(grant("user:alice", "read", *patterns))
    assert allowed(file, user("alice"), Action.READ, subject) is expected


def test_a_pattern_applies_to_the_name_without_its_context_qualifier() -> None:
    file = auth_file(grant("user:alice", "read", "regex:orders-.*", contexts=(".staging",)))
    assert allowed(file, user("alice"), Action.READ, ":.staging:orders-value")
    assert not allowed(file, user("alice"), Action.READ, ":.staging:x-orders-value")


# ---------------------------------------------------------------- contexts
@pytest.mark.parametrize(("contexts", "subject", "expected"), [
    ((".",), "orders", True),
    ((".",), ":.staging:orders", False),
    ((".staging",), ":.staging:orders", True),
    ((".staging",), "orders", False),
    ((".staging",), ":.prod:orders", False),
    ((".", ".staging"), ":.staging:orders", True),
    (("*",), "orders", True),
    (("*",), ":.anything:orders", True),
    (("staging",), ":.staging:orders", True),  # a name written without its dot is the same context
])
def test_contexts_limit_where_a_grant_applies(contexts, subject: str, expected: bool) -> None:
    file = auth_file(grant("user:alice", "read", "*", contexts=contexts))
    assert allowed(file, user("alice"), Action.READ, subject) is expected


def test_a_grant_without_contexts_covers_the_default_context_only() -> None:
    from app.security.records import Grant, Role
    from support.grants import pattern

    file = auth_file(Grant("user:alice", Role.READ, subjects=(pattern("*"),)))
    assert allowed(file, user("alice"), Action.READ, "orders")
    assert not allowed(file, user("alice"), Action.READ, ":.staging:orders")


def test_a_global_grant_covers_every_subject_of_every_context() -> None:
    file = auth_file(grant("user:alice", "write", scope="global"))
    for subject in ("orders", ":.staging:orders", ":.a.b:c"):
        assert allowed(file, user("alice"), Action.WRITE, subject)
        assert not allowed(file, user("alice"), Action.ADMIN, subject)


# ---------------------------------------------------------------- the server itself
@pytest.mark.parametrize("scope", ["", ":.staging:", ":.__GLOBAL:"])
def test_the_server_and_context_settings_need_a_global_admin(scope: str) -> None:
    subject_admin = auth_file(grant("user:alice", "admin", "*", contexts=("*",)))
    global_write = auth_file(grant("user:alice", "write", scope="global"))
    global_admin = auth_file(grant("user:alice", "admin", scope="global"))
    for action in (Action.WRITE_CONFIG, Action.DELETE, Action.ADMIN):
        assert not allowed(subject_admin, user("alice"), action, scope)
        assert not allowed(global_write, user("alice"), action, scope)
        assert allowed(global_admin, user("alice"), action, scope)


@pytest.mark.parametrize("scope", ["", ":.staging:"])
def test_anyone_past_authentication_may_read_the_server_and_context_settings(scope: str) -> None:
    nothing = auth_file()
    assert allowed(nothing, user("alice"), Action.READ_CONFIG, scope)
    assert allowed(nothing, ANONYMOUS_CALLER, Action.READ_CONFIG, scope)


# ---------------------------------------------------------------- refusals
def test_a_refusal_names_the_operation_and_the_subject_as_confluent_does() -> None:
    denied = refusal(EXAMPLE, user("reader"), Action.WRITE, "payments.orders-value")
    assert (denied.http_status, denied.error_code) == (403, 40301)
    assert denied.message == "User is denied operation Write on Subject: payments.orders-value"
    assert refusal(EXAMPLE, user("reader"), Action.READ, "orders").message == (
        "User is denied operation Read on Subject: orders"
    )
    assert refusal(EXAMPLE, user("carol", "payments"), Action.ADMIN, "payments.x").message == (
        "User is denied operation Admin on Subject: payments.x"
    )


def test_a_refusal_outside_the_default_context_names_the_qualified_subject() -> None:
    denied = refusal(EXAMPLE, user("reader"), Action.DELETE, ":.prod:payments.orders-value")
    assert denied.message == "User is denied operation Write on Subject: :.prod:payments.orders-value"


def test_a_refused_server_operation_gets_the_servers_message() -> None:
    denied = refusal(EXAMPLE, user("carol", "payments"), Action.WRITE_CONFIG, "")
    assert (denied.error_code, denied.message) == (40301, "User is denied operation on this server.")
    assert refusal(EXAMPLE, user("carol"), Action.DELETE, ":.staging:").message == (
        "User is denied operation on this server."
    )


# ---------------------------------------------------------------- the example file of the issue
@pytest.mark.parametrize(("principal", "action", "subject", "expected"), [
    (user("ops"), Action.WRITE_CONFIG, "", True),
    (user("ops"), Action.ADMIN, ":.anywhere:x", True),
    (user("ci-publisher", "payments"), Action.WRITE, "payments.orders-value", True),
    (user("ci-publisher", "payments"), Action.WRITE, ":.staging:payments.orders-value", True),
    (user("ci-publisher", "payments"), Action.WRITE, ":.prod:payments.orders-value", False),
    (user("ci-publisher", "payments"), Action.DELETE, "billing-key", True),
    (user("ci-publisher", "payments"), Action.WRITE_CONFIG, "payments.orders-value", False),
    (user("ci-publisher", "payments"), Action.READ, "shared.currency", True),
    (user("ci-publisher", "payments"), Action.WRITE, "shared.currency", False),
    (user("someone"), Action.READ, "shared.currency", True),
    (user("someone"), Action.READ, ":.staging:shared.currency", False),
    (ANONYMOUS_CALLER, Action.READ, "shared.currency", False),
])
def test_the_issues_example_grants(principal, action: Action, subject: str, expected: bool) -> None:
    assert allowed(EXAMPLE, principal, action, subject) is expected


# ---------------------------------------------------------------- filtering and the file in force
def test_filter_keeps_the_readable_subjects_in_order() -> None:
    names = ["shared.z", "payments.a", ":.staging:payments.b", ":.prod:payments.c", "billing-key", "", "other"]
    authorizer = GrantAuthorizer(lambda: EXAMPLE)
    assert authorizer.filter(user("carol", "payments"), names) == [
        "shared.z", "payments.a", ":.staging:payments.b", "billing-key",
    ]
    assert authorizer.filter(user("someone"), names) == ["shared.z"]
    assert authorizer.filter(user("ops"), names) == [n for n in names if n]


def test_only_a_global_grant_reads_everything() -> None:
    authorizer = GrantAuthorizer(lambda: EXAMPLE)
    assert authorizer.read_scope(user("ops")) is None
    assert authorizer.read_scope(user("carol", "payments")) is not None
    assert authorizer.read_scope(ANONYMOUS_CALLER) is not None


def test_a_callers_read_scope_lasts_as_long_as_the_file() -> None:
    """Replies cached under the scope serve the same caller while the grants hold, and
    nobody else: another caller, or the same one after a reload, has another scope."""
    files = [EXAMPLE]
    authorizer = GrantAuthorizer(lambda: files[-1])
    carol = authorizer.read_scope(user("carol", "payments"))
    assert authorizer.read_scope(user("carol", "payments")) is carol
    assert authorizer.read_scope(user("dave", "payments")) != carol
    files.append(auth_file(*EXAMPLE.grants))
    assert authorizer.read_scope(user("carol", "payments")) != carol


def test_without_an_auth_file_everything_is_allowed() -> None:
    authorizer = GrantAuthorizer(lambda: None)
    for action in Action:
        authorizer.check(ANONYMOUS_CALLER, action, "")
        authorizer.check(ANONYMOUS_CALLER, action, ":.ctx:anything")
    assert authorizer.filter(ANONYMOUS_CALLER, ["a", ":.b:c"]) == ["a", ":.b:c"]
    assert authorizer.read_scope(ANONYMOUS_CALLER) is None


def test_a_new_file_is_in_force_from_the_next_check() -> None:
    files = [auth_file(grant("user:alice", "read", "*"))]
    authorizer = GrantAuthorizer(lambda: files[-1])
    alice = user("alice")
    authorizer.check(alice, Action.READ, "orders")
    assert authorizer.read_scope(alice) is not None
    files.append(auth_file(grant("user:bob", "read", "*")))
    with pytest.raises(Forbidden):
        authorizer.check(alice, Action.READ, "orders")
    files.append(auth_file(grant("user:alice", "read", scope="global")))
    assert authorizer.read_scope(alice) is None


def test_each_file_is_compiled_once_however_many_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    from app.security import authorizer as module

    compiled = []
    original = module._CompiledGrants.__init__

    def counting(self, grants) -> None:  # type: ignore[no-untyped-def]
        compiled.append(1)
        original(self, grants)

    monkeypatch.setattr(module._CompiledGrants, "__init__", counting)
    files = [EXAMPLE]
    authorizer = GrantAuthorizer(lambda: files[-1])
    for _ in range(100):
        authorizer.check(user("carol", "payments"), Action.WRITE, "payments.orders")
        authorizer.filter(user("someone"), ["shared.a", "x"])
    files.append(auth_file(grant("user:bob", "read", "*")))
    authorizer.check(user("bob"), Action.READ, "x")
    assert len(compiled) == 2


# ---------------------------------------------------------------- KEKs
def kek_allowed(file: AuthFile | None, principal, action: Action, name: str, context: str = ".") -> bool:
    try:
        GrantAuthorizer(lambda: file).check_kek(principal, action, context, name)
    except Forbidden:
        return False
    return True


@pytest.mark.parametrize("role", ["read", "write"])
def test_a_file_that_names_no_kek_leaves_every_kek_to_the_global_administrators(role: str) -> None:
    """Subject grants of any breadth, and global grants short of admin, hold no KEK."""
    file = auth_file(grant("user:ops", "admin", scope="global"), grant("user:wide", role, scope="global"),
                     grant("user:team", "admin", "*", contexts=("*",)))
    assert kek_allowed(file, user("ops"), Action.ADMIN, "any_kek", ".staging")
    for caller in ("wide", "team"):
        assert not kek_allowed(file, user(caller), Action.READ, "any_kek"), caller
    assert GrantAuthorizer(lambda: file).filter_keks(user("team"), ".", ["a", "b"]) == []


def test_without_an_auth_file_every_kek_is_everyones() -> None:
    assert kek_allowed(None, ANONYMOUS_CALLER, Action.ADMIN, "k")
    assert GrantAuthorizer(lambda: None).filter_keks(ANONYMOUS_CALLER, ".x", ["a", "b"]) == ["a", "b"]


@pytest.mark.parametrize(("name", "expected"), [
    ("pay_a", True), ("team-b", True), ("exact_k", True), ("exact_k2", False), ("team-c", False), ("other", False),
])
def test_kek_patterns_match_like_subject_patterns(name: str, expected: bool) -> None:
    file = auth_file(grant("user:alice", "read", keks=("prefix:pay_", "regex:team-(a|b)", "exact:exact_k")))
    assert kek_allowed(file, user("alice"), Action.READ, name) is expected


@pytest.mark.parametrize(("role", "action", "expected"), [
    ("read", Action.READ, True), ("read", Action.WRITE, False),
    ("write", Action.WRITE, True), ("write", Action.DELETE, True), ("write", Action.ADMIN, False),
    ("admin", Action.ADMIN, True),
])
def test_kek_roles_are_ordered_like_subject_roles(role: str, action: Action, expected: bool) -> None:
    file = auth_file(grant("user:alice", role, keks=("*",)))
    assert kek_allowed(file, user("alice"), action, "k") is expected


def test_a_kek_grant_holds_in_its_contexts_only_and_reaches_no_subject() -> None:
    file = auth_file(grant("user:alice", "admin", keks=("*",), contexts=(".staging",)))
    assert kek_allowed(file, user("alice"), Action.ADMIN, "k", ".staging")
    assert not kek_allowed(file, user("alice"), Action.READ, "k", ".")
    assert not allowed(file, user("alice"), Action.READ, ":.staging:k")


def test_a_refused_kek_names_the_role_and_the_kek() -> None:
    file = auth_file(grant("user:alice", "read", keks=("*",)))
    with pytest.raises(Forbidden) as raised:
        GrantAuthorizer(lambda: file).check_kek(user("alice"), Action.WRITE, ".", "k")
    assert str(raised.value) == "User is denied operation Write on Kek: k"
