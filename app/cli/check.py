"""`sqlregistry check` and `sqlregistry register`, for CI pipelines.

    sqlregistry check schemas/user.avsc --subject users-value [--new-subject] [--format json]
    sqlregistry check schemas/user.avsc --policy-file policies.toml [--set NAME] [--previous old.avsc]
    sqlregistry register schemas/user.avsc --subject users-value

Exit codes are the contract a pipeline branches on: 0 compatible (or every file registered)
and no policy error, 1 incompatible or a policy error (`register`: some file refused, as
incompatible, invalid or by a policy; every file is still tried), 2 anything that is not a
verdict: bad usage, no registry reachable, unreadable file, invalid policy file (`check`: an
invalid schema too, and a subject with no versions unless `--new-subject` says a first version
is meant: a mistyped subject must not pass every check). A failure prints one clear line on
stderr. `--url` (or `REGISTRY_URL`, comma-separated for several) names the registry;
credentials come from userinfo in the URL or `REGISTRY_TO_AUTH` (`basic:USER:PASSWORD` or
`bearer:TOKEN`), as for the migration commands.

An incompatible file is followed by one line per problem, `TYPE at LOCATION (field NAME): message`,
the same for the three formats (app/cli/check_report.py).

The functions take argv and return the exit code, so `app/cli/main.py` wires them in with one line
each and tests call them directly.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit, urlunsplit
from typing import Callable, Sequence, TextIO

from app.cli.check_report import CheckReport, name_fields, parse_messages
from app.client.errors import IncompatibleSchema, InvalidSchema, RegistryClientError, RegistryUnavailable
from app.client.records import Schema, SchemaReference
from app.client.registry_client import RegistryClient

OK, INCOMPATIBLE, FAILED = 0, 1, 2
SCHEMA_TYPES = ("AVRO", "JSON", "PROTOBUF")
_TYPE_BY_SUFFIX = {".avsc": "AVRO", ".avro": "AVRO", ".json": "JSON", ".proto": "PROTOBUF"}


class UsageError(Exception):
    """Bad arguments or environment: exit 2 with the message."""


def _parser(name: str, doc: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=f"sqlregistry {name}", description=doc)
    parser.add_argument("files", nargs="+", metavar="FILE", type=Path, help="schema file(s)")
    parser.add_argument("--subject", required=name != "check", help="subject to check against / register under")
    parser.add_argument("--url", help="registry URL(s), comma-separated (default: $REGISTRY_URL)")
    parser.add_argument("--type", choices=SCHEMA_TYPES, dest="schema_type",
                        help="schema type (default: from the file suffix, .avsc AVRO, .json JSON, .proto PROTOBUF)")
    parser.add_argument("--reference", action="append", default=[], metavar="NAME=SUBJECT:VERSION",
                        help="a reference of the schema(s); repeat for several")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per request (default 10)")
    return parser


def _client(url: str | None, timeout: float) -> RegistryClient:
    """Credentials as the migration commands take them: userinfo in the URL, or
    `REGISTRY_TO_AUTH` as `basic:USER:PASSWORD` or `bearer:TOKEN` (which wins); the older
    `REGISTRY_AUTH` (`user:password`) still works."""
    url = url or os.environ.get("REGISTRY_URL")
    if not url:
        raise UsageError("no registry URL: give --url or set REGISTRY_URL")
    urls, auth = [], None
    for one in (part.strip() for part in url.split(",")):
        parts = urlsplit(one)
        if parts.username is not None:
            auth = (unquote(parts.username), unquote(parts.password or ""))
            netloc = parts.netloc.rpartition("@")[2]
            one = urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
        urls.append(one)
    legacy = os.environ.get("REGISTRY_AUTH")
    if legacy:
        if ":" not in legacy:
            raise UsageError("REGISTRY_AUTH must look like user:password")
        auth = legacy  # type: ignore[assignment]
    bearer = None
    configured = os.environ.get("REGISTRY_TO_AUTH")
    if configured:
        kind, _, secret = configured.partition(":")
        if kind == "basic" and ":" in secret:
            auth = secret  # type: ignore[assignment]
        elif kind == "bearer" and secret:
            auth, bearer = None, secret
        else:
            raise UsageError("REGISTRY_TO_AUTH must be basic:USER:PASSWORD or bearer:TOKEN")
    try:
        return RegistryClient(urls, auth=auth, bearer_token=bearer, timeout=timeout, retries=1, cache_ttl=0)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def parse_reference(text: str) -> SchemaReference:
    name, sep, target = text.partition("=")
    subject, colon, version = target.rpartition(":")
    if not (sep and colon and name and subject) or not version.strip().isdigit():
        raise UsageError(f"--reference {text!r} must look like NAME=SUBJECT:VERSION")
    return SchemaReference(name, subject, int(version))


def _schema(path: Path, schema_type: str | None, references: tuple[SchemaReference, ...]) -> Schema:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None
    return Schema(text, schema_type or _TYPE_BY_SUFFIX.get(path.suffix.lower(), "AVRO"), references)


Command = Callable[[RegistryClient, argparse.Namespace, "list[tuple[Path, Schema]]", TextIO], int]


def _run(
    name: str, doc: str, argv: Sequence[str] | None, body: Command,
    extra: Callable[[argparse.ArgumentParser], None] | None = None,
) -> int:
    """Parse, build the client, run `body`; every failure that is not a verdict becomes one
    line on stderr and exit code 2."""
    parser = _parser(name, doc)
    if extra is not None:
        extra(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse has printed the usage line (or the help, code 0)
        return OK if not exc.code else FAILED
    try:
        references = tuple(parse_reference(item) for item in args.reference)
        client = _client(args.url, args.timeout)
        schemas = [(path, _schema(path, args.schema_type, references)) for path in args.files]
        with client:
            return int(body(client, args, schemas, sys.stdout))
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
    except RegistryUnavailable as exc:
        print(f"error: registry unreachable: {exc.message}", file=sys.stderr)
    except RegistryClientError as exc:
        print(f"error: {exc}", file=sys.stderr)
    return FAILED


def _policy_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--policy-file", type=Path, help="check policies offline with this file (TOML or JSON)")
    parser.add_argument("--set", action="append", default=[], dest="sets", metavar="NAME",
                        help="policy set to apply offline; repeat for several (default: the file's default)")
    parser.add_argument("--previous", type=Path, help="offline: the version the files change (for forbidden-changes)")
    parser.add_argument("--format", choices=("text", "json"), default="text", dest="output")
    parser.add_argument("--new-subject", action="store_true",
                        help="the subject may have no versions yet (a first version); without it that is an error")


def check_main(argv: Sequence[str] | None = None) -> int:
    """Test schema files against the subject's compatibility level and schema policies, on a
    registry, or against a policy file offline (`--policy-file`)."""
    parser = _parser("check", check_main.__doc__ or "")
    _policy_options(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return OK if not exc.code else FAILED
    if args.policy_file is not None:
        return _offline(args)
    if not args.subject:
        print("error: --subject is needed to check against a registry", file=sys.stderr)
        return FAILED
    return _run("check", check_main.__doc__ or "", argv, _check, _policy_options)


def _offline(args: argparse.Namespace) -> int:
    from app.cli.policy_check import PolicyFileError, offline_outcomes, print_outcome

    try:
        if args.reference:
            raise UsageError("references need a registry (--url): offline checks read single files")
        files = [(path, schema.schema_type, schema.text)
                 for path in args.files for schema in [_schema(path, args.schema_type, ())]]
        previous = None
        if args.previous is not None:
            previous = (args.previous, args.schema_type or _TYPE_BY_SUFFIX.get(args.previous.suffix.lower(), "AVRO"))
        outcomes = offline_outcomes(args.policy_file, args.sets, files, previous, args.subject or "")
    except (UsageError, PolicyFileError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return FAILED
    failed = False
    for (path, _, _), outcome in zip(files, outcomes):
        if args.output == "json":
            print(json.dumps({"file": str(path), **outcome}), file=sys.stdout)
            failed = failed or any(v["severity"] == "error" for v in outcome["violations"])
        else:
            failed = print_outcome(path, outcome, args.previous, sys.stdout) or failed
    return INCOMPATIBLE if failed else OK


def _check(client: RegistryClient, args: argparse.Namespace, schemas: list[tuple[Path, Schema]], out: TextIO) -> int:
    """Policies (where the registry has them) and compatibility, per file. With
    `--format json` each file is one JSON line: the check endpoint's structure plus
    `compatible`, `level` and, when incompatible, `incompatibilities` (type, location, field,
    message); nothing else is printed.

    A subject with no versions passes every compatibility check, so a mistyped `--subject`
    would pass them all: it is refused (exit 2, naming close subjects) unless `--new-subject`
    says a first version is meant."""
    from app.cli.policy_check import print_outcome

    first = _first_version(client, args.subject, args.new_subject)
    verdict = OK
    for path, schema in schemas:
        try:
            outcome = client.check_policies(args.subject, schema)
            result = client.test_compatibility(args.subject, schema)
        except InvalidSchema as exc:
            raise UsageError(f"{path}: invalid schema: {exc.message}") from None
        except RegistryClientError as exc:
            if exc.http_status != 404 or exc.error_code != 404:
                raise
            # A registry without schema policies (Confluent's): compatibility alone decides.
            outcome = {"violations": [], "checked": [], "skipped": []}
            result = client.test_compatibility(args.subject, schema)
        report = None if result.is_compatible else _report(client, args.subject, schema)
        failed = any(v["severity"] == "error" for v in outcome["violations"]) or report is not None
        if failed:
            verdict = INCOMPATIBLE
        if args.output == "json":
            level = client.get_compatibility_level(args.subject) if report is None else report.level
            line: dict[str, object] = {"file": str(path), **outcome, "compatible": report is None, "level": level}
            if first:
                line["new_subject"] = True
            if report is not None:
                line["incompatibilities"] = [p.as_json() for p in report.problems]
            print(json.dumps(line), file=out)
            continue
        print_outcome(path, outcome, None, out)
        if report is None:
            if first:
                print(f"{path}: compatible: {args.subject} has no versions yet, this would be its first", file=out)
            else:
                print(f"{path}: compatible with {args.subject} ({client.get_compatibility_level(args.subject)})",
                      file=out)
            continue
        against = f", version {report.old_version}" if report.old_version is not None else ""
        print(f"{path}: INCOMPATIBLE with {args.subject} ({report.level or 'level unknown'}{against})", file=out)
        _print_problems(report, out)
    return verdict


def _first_version(client: RegistryClient, subject: str, allowed: bool) -> bool:
    """Whether `subject` has no live versions (a first version); `UsageError` for that unless
    `allowed`, naming the subjects spelled closest to it."""
    try:
        client.get_versions(subject)
        return False
    except RegistryClientError as exc:
        if exc.http_status != 404 or exc.error_code != 40401:
            raise
    if allowed:
        return True
    import difflib

    close = difflib.get_close_matches(subject, client.get_subjects(), n=3, cutoff=0.75)
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    raise UsageError(f"subject {subject!r} has no versions{hint}: every schema would pass against it; "
                     "check the name, or give --new-subject to check a first version")


def _report(client: RegistryClient, subject: str, schema: Schema) -> CheckReport:
    """The verbose answer taken apart, its locations resolved to field names where the
    format can do it here."""
    report = parse_messages(client.test_compatibility(subject, schema, verbose=True).messages)
    return name_fields(report, schema.schema_type, schema.text)


def _print_problems(report: CheckReport, out: TextIO) -> None:
    for problem in report.problems:
        print(f"  - {problem.line()}", file=out)


def register_main(argv: Sequence[str] | None = None) -> int:
    """Register schema files under a subject and print each one's id and version."""
    def normalize_flag(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--normalize", action="store_true", help="let the registry normalize the schema first")

    return _run("register", register_main.__doc__ or "", argv, _register, normalize_flag)


def _register(client: RegistryClient, args: argparse.Namespace, schemas: list[tuple[Path, Schema]], out: TextIO) -> int:
    """Each file is registered or refused on its own line and the run goes on: a pipeline that
    registers a folder learns every refused file from one run, not one per run."""
    refused = False
    for path, schema in schemas:
        try:
            registered = client.register(args.subject, schema, normalize=args.normalize)
        except InvalidSchema as exc:  # invalid, or refused by the subject's policies
            print(f"{path}: rejected by {args.subject}: {exc.message}", file=out)
            refused = True
            continue
        except IncompatibleSchema as exc:
            # The 409's message quotes the old version whole (a `.proto` on one line): the
            # verbose check gives the same problems one per line.
            try:
                report = _report(client, args.subject, schema)
            except RegistryClientError:
                report = CheckReport((), None, None)
            if not report.problems:
                print(f"{path}: rejected, incompatible with {args.subject}: {exc.message.split(', details:')[0]}",
                      file=out)
                refused = True
                continue
            against = f", version {report.old_version}" if report.old_version is not None else ""
            print(f"{path}: rejected, incompatible with {args.subject} ({report.level or 'level unknown'}{against})",
                  file=out)
            _print_problems(report, out)
            refused = True
            continue
        if registered.version is None:  # a 7.x registry answers with the id alone
            registered = client.lookup(args.subject, schema, normalize=args.normalize)
        print(f"{path}: registered under {args.subject}: id {registered.schema_id}, version {registered.version}",
              file=out)
    return INCOMPATIBLE if refused else OK
