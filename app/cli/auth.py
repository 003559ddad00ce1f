"""`sqlregistry auth ...`: the tools an operator uses to write the auth file.

* `hash-password [--ln N] [--r N] [--p N]` reads one password line from standard input
  (through getpass when it is a terminal, so it is not echoed) and prints only the PHC
  string, so `$(sqlregistry auth hash-password < secret)` drops straight into the file;
* `check-file PATH` loads a file exactly as the server would: exit 0, or 1 with the one
  line the server would stop on, so a broken file is caught before it is deployed.
"""
from __future__ import annotations

import argparse
import getpass
import sys
from collections.abc import Sequence

from app.security.passwords import DEFAULT_LN, DEFAULT_P, DEFAULT_R, LN_RANGE, P_RANGE, R_RANGE, hash_password


def _bounded(low: int, high: int) -> type[int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be between {low} and {high}, got {value}")
        return value

    return parse  # type: ignore[return-value]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sqlregistry auth", description="auth file tools")
    commands = parser.add_subparsers(dest="auth_command", required=True)
    hashing = commands.add_parser("hash-password", help="read a password on stdin, print its $scrypt$ PHC string")
    hashing.add_argument("--ln", type=_bounded(*LN_RANGE), default=DEFAULT_LN,
                         help=f"log2 of scrypt's N, {LN_RANGE[0]}-{LN_RANGE[1]} (default {DEFAULT_LN})")
    hashing.add_argument("--r", type=_bounded(*R_RANGE), default=DEFAULT_R,
                         help=f"block size, {R_RANGE[0]}-{R_RANGE[1]} (default {DEFAULT_R})")
    hashing.add_argument("--p", type=_bounded(*P_RANGE), default=DEFAULT_P,
                         help=f"parallelism, {P_RANGE[0]}-{P_RANGE[1]} (default {DEFAULT_P})")
    check = commands.add_parser("check-file", help="validate an auth file; exit 0, or 1 with the problem")
    check.add_argument("path")
    return parser


def hash_command(args: argparse.Namespace) -> int:
    from app.security.passwords import InvalidHash

    if sys.stdin.isatty():
        password = getpass.getpass("Password: ")
    else:
        password = sys.stdin.readline().removesuffix("\n").removesuffix("\r")
    if not password:
        print("sqlregistry auth hash-password: error: empty password", file=sys.stderr)
        return 2
    try:
        print(hash_password(password, args.ln, args.r, args.p))
    except InvalidHash as exc:  # a combination past what hashlib.scrypt can use
        print(f"sqlregistry auth hash-password: error: {exc}", file=sys.stderr)
        return 2
    return 0


def check_command(args: argparse.Namespace) -> int:
    from app.security.authfile import load_auth_file
    from app.security.errors import AuthFileError
    from app.security.reload import describe

    try:
        file = load_auth_file(args.path)
    except AuthFileError as exc:
        print(f"sqlregistry: error: {describe(args.path, exc)}", file=sys.stderr)
        return 1
    methods = ", ".join(sorted(file.authentication.methods))
    print(f"{args.path}: valid ({len(file.users)} users, {len(file.grants)} grants; methods: {methods})")
    return 0


def main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(list(argv))
    return hash_command(args) if args.auth_command == "hash-password" else check_command(args)
