"""Password hashes in the auth file: standard-library scrypt in the PHC string form
`$scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt>$<key>` (standard base64, no padding).

The format is fixed because operators and external tooling write these strings by hand or
with other tools; the accepted parameters are bounded so that a hand-edited file can neither
make a login cheap to brute-force (ln < 14) nor make every login exhaust a worker's memory.
hashlib.scrypt itself refuses to use more than 2 GiB (its `maxmem` is a C int), so a
combination whose working set would exceed that is refused when the file is read, not when
a caller first logs in.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import re
from dataclasses import dataclass

LN_RANGE = (14, 20)
R_RANGE = (1, 32)
P_RANGE = (1, 16)
DEFAULT_LN, DEFAULT_R, DEFAULT_P = 15, 8, 1
SALT_BYTES = 16
KEY_BYTES = 32
# hashlib.scrypt's `maxmem` is checked against INT_MAX by CPython.
_MAXMEM_LIMIT = 2**31 - 1
_PHC = re.compile(r"\$scrypt\$ln=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)")


class InvalidHash(ValueError):
    """A string that is not an acceptable `$scrypt$` PHC hash; the message says why."""


@dataclass(frozen=True)
class ScryptHash:
    """A parsed PHC string: what a verification needs, decoded once when the file is loaded."""

    ln: int
    r: int
    p: int
    salt: bytes
    key: bytes

    @property
    def parameters(self) -> tuple[int, int, int]:
        return self.ln, self.r, self.p

    def matches(self, password: bytes) -> bool:
        """One full scrypt derivation and a constant-time comparison."""
        derived = _scrypt(password, self.salt, self.ln, self.r, self.p, len(self.key))
        return hmac.compare_digest(derived, self.key)


def check_parameters(ln: int, r: int, p: int) -> None:
    """Raise InvalidHash unless the parameters are within the accepted ranges."""
    for name, value, (low, high) in (("ln", ln, LN_RANGE), ("r", r, R_RANGE), ("p", p, P_RANGE)):
        if not low <= value <= high:
            raise InvalidHash(f"scrypt parameter {name}={value} is outside {low}-{high}")
    if _memory(ln, r, p) > _MAXMEM_LIMIT:
        raise InvalidHash(
            f"scrypt parameters ln={ln}, r={r}, p={p} need {_memory(ln, r, p) >> 20} MiB per verification, "
            f"more than hashlib.scrypt can use (2 GiB); lower ln or r"
        )


def parse_hash(text: str) -> ScryptHash:
    match = _PHC.fullmatch(text)
    if match is None:
        raise InvalidHash("not a $scrypt$ln=<ln>,r=<r>,p=<p>$<salt>$<key> string (standard base64, no padding)")
    ln, r, p = (int(match.group(i)) for i in (1, 2, 3))
    check_parameters(ln, r, p)
    salt, key = _decode(match.group(4), "salt"), _decode(match.group(5), "key")
    if len(salt) < SALT_BYTES:
        raise InvalidHash(f"salt is {len(salt)} bytes, at least {SALT_BYTES} are required")
    if len(key) < KEY_BYTES:
        raise InvalidHash(f"key is {len(key)} bytes, at least {KEY_BYTES} are required")
    return ScryptHash(ln, r, p, salt, key)


def hash_password(password: str, ln: int = DEFAULT_LN, r: int = DEFAULT_R, p: int = DEFAULT_P) -> str:
    """A new PHC string with a fresh 16-byte random salt."""
    check_parameters(ln, r, p)
    salt = os.urandom(SALT_BYTES)
    key = _scrypt(password.encode("utf-8"), salt, ln, r, p, KEY_BYTES)
    return f"$scrypt$ln={ln},r={r},p={p}${_encode(salt)}${_encode(key)}"


def decoy_hash(parameters: tuple[int, int, int] = (DEFAULT_LN, DEFAULT_R, DEFAULT_P)) -> ScryptHash:
    """A hash nobody knows the password of, verified for unknown users so that they cost the
    same work as a wrong password (no user enumeration by timing)."""
    ln, r, p = parameters
    return ScryptHash(ln, r, p, os.urandom(SALT_BYTES), os.urandom(KEY_BYTES))


def _scrypt(password: bytes, salt: bytes, ln: int, r: int, p: int, dklen: int) -> bytes:
    return hashlib.scrypt(password, salt=salt, n=2**ln, r=r, p=p, dklen=dklen, maxmem=_memory(ln, r, p))


def _memory(ln: int, r: int, p: int) -> int:
    """OpenSSL's own estimate of scrypt's working set (V and B), plus a margin for its checks."""
    return 128 * r * (2**ln + 2) + 128 * r * p + (1 << 20)


def _encode(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii").rstrip("=")


def _decode(text: str, what: str) -> bytes:
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise InvalidHash(f"{what} is not standard base64") from None
