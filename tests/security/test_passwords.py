"""Password hashes: the PHC strings `sqlregistry auth hash-password` prints are plain
standard-library scrypt that anyone can check by hand, and the loader accepts only the
agreed parameter ranges."""
from __future__ import annotations

import base64
import hashlib
import os
import re
import sys
from pathlib import Path

import pytest
from support.commands import run_command

from app.security.passwords import InvalidHash, parse_hash

REPO_ROOT = Path(__file__).resolve().parents[2]
PHC = re.compile(r"\$scrypt\$ln=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)")


def run_hash(stdin: str, *flags: str, command: tuple[str, ...] = (sys.executable, "-m", "app.cli")):
    return run_command([*command, "auth", "hash-password", *flags], input=stdin, capture_output=True,
                       text=True, cwd=REPO_ROOT)


def unpadded(text: str) -> bytes:
    assert "=" not in text
    return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)


def by_hand(password: str, ln: int, r: int, p: int, salt: bytes, dklen: int) -> bytes:
    return hashlib.scrypt(password.encode(), salt=salt, n=2**ln, r=r, p=p, dklen=dklen,
                          maxmem=256 * r * 2**ln)


def test_the_cli_prints_only_a_default_cost_phc_string_that_hand_computed_scrypt_reproduces():
    result = run_hash("correct horse battery staple\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.endswith("\n") and result.stdout.count("\n") == 1
    match = PHC.fullmatch(result.stdout.rstrip("\n"))
    assert match, result.stdout
    ln, r, p = (int(match.group(i)) for i in (1, 2, 3))
    assert (ln, r, p) == (15, 8, 1)
    salt, key = unpadded(match.group(4)), unpadded(match.group(5))
    assert (len(salt), len(key)) == (16, 32)
    assert by_hand("correct horse battery staple", ln, r, p, salt, len(key)) == key


def test_flags_set_the_cost_and_two_runs_never_share_a_salt():
    first, second = run_hash("pw\n", "--ln", "14", "--r", "4", "--p", "2"), run_hash("pw\n", "--ln", "14")
    assert first.returncode == second.returncode == 0
    one, two = PHC.fullmatch(first.stdout.strip()), PHC.fullmatch(second.stdout.strip())
    assert one.group(1, 2, 3) == ("14", "4", "2")
    assert one.group(4) != two.group(4)
    assert by_hand("pw", 14, 4, 2, unpadded(one.group(4)), 32) == unpadded(one.group(5))


# What the `sqlregistry` console script runs (pyproject's [project.scripts]).
ENTRY_POINT = (sys.executable, "-c", "import sys; from app.cli.main import main; sys.exit(main())")


def test_the_console_script_entry_point_and_python_m_app_cli_behave_the_same():
    installed = run_hash("pw\n", "--ln", "14", command=ENTRY_POINT)
    assert installed.returncode == 0, installed.stderr
    match = PHC.fullmatch(installed.stdout.strip())
    assert by_hand("pw", 14, 8, 1, unpadded(match.group(4)), 32) == unpadded(match.group(5))


def test_a_password_line_keeps_its_inner_and_trailing_spaces():
    result = run_hash("  two words  \n", "--ln", "14")
    parsed = parse_hash(result.stdout.strip())
    assert parsed.matches(b"  two words  ")
    assert not parsed.matches(b"two words")


@pytest.mark.parametrize("stdin", ["", "\n"])
def test_an_empty_password_exits_2_with_a_message(stdin: str):
    result = run_hash(stdin)
    assert result.returncode == 2
    assert result.stdout == ""
    assert "empty password" in result.stderr


@pytest.mark.parametrize("flags", [["--ln", "13"], ["--ln", "21"], ["--r", "0"], ["--r", "33"], ["--p", "0"],
                                   ["--p", "17"], ["--ln", "x"]])
def test_out_of_range_cost_flags_exit_2(flags: list[str]):
    result = run_hash("pw\n", *flags)
    assert result.returncode == 2
    assert result.stdout == ""


def test_a_hash_computed_outside_the_registry_verifies():
    salt = os.urandom(16)
    key = by_hand("s3cret", 14, 8, 1, salt, 32)
    salt_text, key_text = (base64.b64encode(raw).decode().rstrip("=") for raw in (salt, key))
    text = f"$scrypt$ln=14,r=8,p=1${salt_text}${key_text}"
    parsed = parse_hash(text)
    assert parsed.matches(b"s3cret")
    assert not parsed.matches(b"s3cret ")


SALT = base64.b64encode(b"s" * 16).decode().rstrip("=")
KEY = base64.b64encode(b"k" * 32).decode().rstrip("=")


@pytest.mark.parametrize(("text", "problem"), [
    (f"$scrypt$ln=13,r=8,p=1${SALT}${KEY}", "ln=13 is outside 14-20"),
    (f"$scrypt$ln=21,r=8,p=1${SALT}${KEY}", "ln=21 is outside 14-20"),
    (f"$scrypt$ln=15,r=0,p=1${SALT}${KEY}", "r=0 is outside 1-32"),
    (f"$scrypt$ln=15,r=33,p=1${SALT}${KEY}", "r=33 is outside 1-32"),
    (f"$scrypt$ln=15,r=8,p=0${SALT}${KEY}", "p=0 is outside 1-16"),
    (f"$scrypt$ln=15,r=8,p=17${SALT}${KEY}", "p=17 is outside 1-16"),
    (f"$scrypt$ln=20,r=32,p=1${SALT}${KEY}", "more than hashlib.scrypt can use"),
    (f"$scrypt$ln=15,r=8,p=1${SALT}==${KEY}", "not a $scrypt$"),
    (f"$scrypt$ln=15,r=8,p=1$%%%${KEY}", "not a $scrypt$"),
    (f"$scrypt$ln=15,r=8,p=1${SALT}${KEY}AB", "key is not standard base64"),
    (f"$scrypt$ln=15,r=8,p=1$c2FsdA${KEY}", "salt is 4 bytes"),
    (f"$scrypt$ln=15,r=8,p=1${SALT}$a2V5", "key is 3 bytes"),
    (f"$scrypt$ln=15,r=8${SALT}${KEY}", "not a $scrypt$"),
    (f"$argon2id$v=19$m=65536,t=3,p=4${SALT}${KEY}", "not a $scrypt$"),
    (f"$scrypt$ln=15,r=8,p=1${SALT}${KEY}\n", "not a $scrypt$"),
])
def test_hashes_outside_the_format_or_the_parameter_ranges_are_refused(text: str, problem: str):
    with pytest.raises(InvalidHash, match=re.escape(problem)):
        parse_hash(text)


def test_the_parameter_bounds_themselves_are_accepted():
    for ln, r, p in ((14, 1, 1), (20, 8, 1), (14, 32, 16)):
        assert parse_hash(f"$scrypt$ln={ln},r={r},p={p}${SALT}${KEY}").parameters == (ln, r, p)
