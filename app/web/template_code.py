"""The pages' compiled templates, kept once per process for every app in it.

Flask gives each app its own Jinja environment, which lexes, parses and compiles a template the
first time that app renders it. A process that builds more than one app (the test suite builds
one per test; a fork server preloads one before its workers make theirs) would compile the same
templates again for each. Jinja's bytecode cache hands each environment the code another one
compiled, keyed by template and checked against the template's source, so a template edited on
disk is compiled afresh. Every app sets the same environment options (`register_web`), which
the compiled code depends on.
"""
from __future__ import annotations

from jinja2 import BytecodeCache
from jinja2.bccache import Bucket


class ProcessTemplateCode(BytecodeCache):
    def __init__(self) -> None:
        self._code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        code = self._code.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)  # ignored by Jinja if the source's checksum differs

    def dump_bytecode(self, bucket: Bucket) -> None:
        self._code[bucket.key] = bucket.bytecode_to_string()


TEMPLATE_CODE = ProcessTemplateCode()
