"""The functions Confluent's CEL executors add to the standard library, for the checks data
contracts write most (`value.isEmail()`, `message.id.isUuid()`): protovalidate's string checks.
The decimal and timestamp extensions are in cel_decimals.py and cel_timestamps.py."""
from __future__ import annotations

import ipaddress
import re
import uuid
from typing import Any, Callable
from urllib.parse import urlparse

from celpy import CELEvalError, celtypes

_HOST_LABEL = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$")
_EMAIL_LOCAL = re.compile(r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+$")


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise CELEvalError("invalid argument, expected string")
    return str(value)


def is_hostname(value: Any) -> celtypes.BoolType:
    host = _text(value)
    if not host or len(host) > 253:
        return celtypes.BoolType(False)
    labels = host[:-1].split(".") if host.endswith(".") else host.split(".")
    return celtypes.BoolType(all(_HOST_LABEL.match(label) for label in labels) and not labels[-1].isdigit())


def is_email(value: Any) -> celtypes.BoolType:
    address = _text(value)
    local, at, domain = address.rpartition("@")
    if not at or not local or len(local) > 64 or "<" in address or " " in address:
        return celtypes.BoolType(False)
    return celtypes.BoolType(bool(_EMAIL_LOCAL.match(local)) and bool(is_hostname(celtypes.StringType(domain))))


def _ip(value: Any, version: int) -> celtypes.BoolType:
    try:
        return celtypes.BoolType(ipaddress.ip_address(_text(value)).version == version)
    except ValueError:
        return celtypes.BoolType(False)


def is_ipv4(value: Any) -> celtypes.BoolType:
    return _ip(value, 4)


def is_ipv6(value: Any) -> celtypes.BoolType:
    return _ip(value, 6)


def is_uri(value: Any) -> celtypes.BoolType:
    url = urlparse(_text(value))
    return celtypes.BoolType(bool(url.scheme and url.netloc and url.path))


def is_uri_ref(value: Any) -> celtypes.BoolType:
    url = urlparse(_text(value))
    return celtypes.BoolType(not (not (url.scheme and url.path) and url.fragment))


def is_uuid(value: Any) -> celtypes.BoolType:
    text = _text(value)
    try:
        return celtypes.BoolType(len(text) == 36 and str(uuid.UUID(text)) == text.lower())
    except ValueError:
        return celtypes.BoolType(False)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "isEmail": is_email, "isHostname": is_hostname, "isIpv4": is_ipv4, "isIpv6": is_ipv6,
    "isUri": is_uri, "isUriRef": is_uri_ref, "isUuid": is_uuid,
}
