"""Whether a JSON Schema regular expression (a `pattern`, a `patternProperties` key) compiles.

JSON Schema says these are ECMA-262 regular expressions; a schema whose pattern does not compile
fails every validator that reads it, so it is refused when it arrives. The choice made here:
Python's `re`, which agrees with ECMA-262 on most of the syntax, compiles a translation of the
pattern that rewrites what ECMA-262 spells differently or Python lacks, and leaves the rest to
Python as written. So:

- ECMA-262 with its web-compatibility annex (Annex B, what browsers and most validators read
  without the `u` flag) is accepted: named groups `(?<n>...)` and `\\k<n>`, `\\p{...}`, `\\cX`,
  `\\u{...}`, the empty classes `[]` and `[^]`, lookbehinds of any width, backreferences to a
  later or an enclosing group (or octal escapes), identity escapes of letters (`\\e`), class
  escapes as range ends (`[\\d-z]`), literal `[` in a class (`[[:alpha:]]`), repetition counts
  past Python's limit.
- Extensions of Python and Java (whose regex engine Confluent's schema loaders compile with)
  that ECMA-262 lacks, such as `(?i)`, `(?P<n>...)` or possessive quantifiers, pass through
  to Python and are accepted as well, so that a schema Confluent accepts is not refused here.
- Refused: what neither reads (`([`, `a**`, `[z-a]`, `\\k<n>` naming no group), and groups
  nested more than `MAX_GROUP_DEPTH` deep (Python's compiler recurses per group).

The translation only decides validity: nothing is matched with it, so a construct Python lacks
(`\\p{L}`) may stand in for by anything of the same shape (`\\w`). For the same reason the
translation is only parsed by Python (`re._parser`), never compiled: every syntax error is
found by the parse, while the compiler's character-set tables cost up to 5 ms per class (a
megabyte of `(?i)[a-\\u{10ffff}]` would take minutes), and nothing compiled lands in `re`'s cache.

Bounded time: the request's work budget is checked between regular expressions and every few
thousand characters of the translation. Python's parse itself cannot be interrupted and is
quadratic in a few shapes (two long alternatives sharing a prefix), so a translation longer
than `IN_PROCESS_CHARS` is parsed in a child process the budget can stop
(app/formats/json_schema/pattern_process.py).
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterable

from app.formats import work_budget
from app.formats.json_schema.errors import InvalidJsonSchema
from app.formats.json_schema.pattern_process import parse_error, parse_error_in_child
from app.formats.json_schema.subschemas import Regex

MAX_GROUP_DEPTH = 100
# Translations up to this many characters are parsed in the serving thread: at most a few
# hundredths of a second even in Python's quadratic shapes. Longer ones go to a child process.
IN_PROCESS_CHARS = 16_384
# The translation checks the work budget once per this many characters of the pattern.
_CHECK_EVERY = 4096
# Python refuses repetition counts past about 2^32; ECMA-262 has no bound. Counts are clamped
# to this (keeping min <= max) before compiling.
_LARGEST_COUNT = 65535
_QUANTIFIER = re.compile(r"\{(\d+)(?:(,)(\d*))?\}")
_CLASS_ESCAPES = frozenset("dDwWsSpP")
_HEX = frozenset("0123456789abcdefABCDEF")
_BRACED_CODE_POINT = re.compile(r"\{([0-9a-fA-F]+)\}")


class _Refused(Exception):
    """A pattern the translation already knows to be invalid, with the reason."""


# A refusal quotes the pattern up to this many characters.
_QUOTED = 100


def check_regexes(regexes: Iterable[Regex]) -> None:
    """`InvalidJsonSchema` naming the JSON pointer of the first regular expression that does
    not compile."""
    for regex in regexes:
        work_budget.check()  # a schema may hold 20,000 `patternProperties`
        error = regex_error(regex.source)
        if error is not None:
            quoted = json.dumps(regex.source[:_QUOTED] + ("..." if len(regex.source) > _QUOTED else ""))
            raise InvalidJsonSchema(f"{regex.pointer}: {quoted} is not a valid ECMA-262 regular expression ({error})")


def regex_error(pattern: str) -> str | None:
    """None when `pattern` compiles as described above; otherwise the reason it does not."""
    try:
        translated = _Translation(pattern).text()
    except _Refused as refused:
        return str(refused)
    work_budget.check()
    if len(translated) <= IN_PROCESS_CHARS:
        return parse_error(translated)
    return parse_error_in_child(translated)


def _count(digits: str) -> int:
    """A repetition count, exact up to far past `_LARGEST_COUNT` (Python refuses to convert
    integers of thousands of digits, which a pattern may spell)."""
    significant = digits.lstrip("0") or "0"
    return int(significant) if len(significant) <= 18 else 10 ** 18


def _is_group_name(name: str) -> bool:
    """ECMA-262's RegExpIdentifierName: an identifier, where `$` counts as a letter."""
    if not name or not (name[0] in "$_" or name[0].isidentifier()):
        return False
    return all(char in "$\u200c\u200d" or ("a" + char).isidentifier() for char in name[1:])


class _Translation:
    """One left-to-right pass over a pattern, building Python's spelling of it."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.out: list[str] = []
        self.names: dict[str, str] = {}  # ECMA group name -> a Python group name
        self.named_references: list[tuple[int, str | None]] = []  # (index in out, name)
        # Where the last `>` is: a `\k<` after it names nothing, known without searching the
        # rest of the pattern again (a pattern of many such escapes stays linear).
        self.last_angle = pattern.rfind(">")

    def text(self) -> str:
        pattern, depth, i, next_check = self.pattern, 0, 0, _CHECK_EVERY
        while i < len(pattern):
            if i >= next_check:
                work_budget.check()
                next_check = i + _CHECK_EVERY
            char = pattern[i]
            if char == "\\":
                i = self._escape(i, self.out, in_class=False)
            elif char == "[":
                i = self._character_class(i)
            elif char == "(":
                depth += 1
                if depth > MAX_GROUP_DEPTH:
                    raise _Refused(f"groups nested more than {MAX_GROUP_DEPTH} deep")
                i = self._group(i)
            elif char == "{":
                i = self._braces(i)
            else:
                if char == ")" and depth > 0:
                    depth -= 1
                self.out.append(char)
                i += 1
        self._resolve_named_references()
        return "".join(self.out)

    def _group(self, i: int) -> int:
        pattern = self.pattern
        if pattern.startswith(("(?<=", "(?<!"), i):
            self.out.append("(?:")  # any width is valid in ECMA-262; Python wants a fixed one
            return i + 4
        if pattern.startswith("(?<", i):
            end = pattern.find(">", i + 3)
            if end < 0:
                raise _Refused("unterminated group name")
            name = pattern[i + 3:end]
            if not _is_group_name(name):
                raise _Refused(f"invalid group name '{name}'")
            if name in self.names:
                raise _Refused(f"duplicate group name '{name}'")
            self.names[name] = f"g{len(self.names)}"
            self.out.append(f"(?P<{self.names[name]}>")
            return end + 1
        self.out.append("(")
        return i + 1

    def _braces(self, i: int) -> int:
        match = _QUANTIFIER.match(self.pattern, i)
        if match is None:
            self.out.append("\\{")  # not a quantifier: a literal brace (Annex B)
            return i + 1
        low, comma, high = _count(match[1]), match[2], match[3]
        if comma is None:
            self.out.append(f"{{{min(low, _LARGEST_COUNT)}}}")
        elif not high:
            self.out.append(f"{{{min(low, _LARGEST_COUNT)},}}")
        elif low > _count(high):
            self.out.append("{2,1}")  # min above max: an error in both dialects
        else:
            self.out.append(f"{{{min(low, _LARGEST_COUNT)},{min(_count(high), _LARGEST_COUNT)}}}")
        return match.end()

    def _character_class(self, i: int) -> int:
        pattern = self.pattern
        j = i + 1
        negated = pattern.startswith("^", j)
        j += negated
        if pattern.startswith("]", j):
            # ECMA-262's `[]` matches nothing and `[^]` anything; in Python `]` would be a member.
            self.out.append("[\\s\\S]" if negated else "[^\\s\\S]")
            return j + 1
        parts = ["[^" if negated else "["]
        after_class_escape = False
        while j < len(pattern) and pattern[j] != "]":
            char = pattern[j]
            if char == "\\":
                j = self._escape(j, parts, in_class=True)
                after_class_escape = parts[-1] in ("\\w", "\\W", "\\d", "\\D", "\\s", "\\S")
                continue
            if char == "-" and (after_class_escape or self._class_escape_at(j + 1)):
                parts.append("\\-")  # a range with a class escape at an end: a literal '-' (Annex B)
            elif char == "-" and parts[-1] == "-":
                parts.append("\\-")  # the same range end; Python reserves `--` for set difference
            elif char in "[&~|":
                parts.append("\\" + char)  # literal in ECMA-262; Python reserves them for set operations
            else:
                parts.append(char)
            after_class_escape = False
            j += 1
        if j < len(pattern):
            parts.append("]")
            j += 1
        self.out.extend(parts)  # unterminated: Python says so
        return j

    def _class_escape_at(self, i: int) -> bool:
        return self.pattern.startswith("\\", i) and i + 1 < len(self.pattern) \
            and self.pattern[i + 1] in _CLASS_ESCAPES

    def _escape(self, i: int, out: list[str], *, in_class: bool) -> int:
        pattern = self.pattern
        if i + 1 >= len(pattern):
            out.append("\\")  # a trailing backslash: Python refuses it, as ECMA-262 does
            return i + 1
        char, j = pattern[i + 1], i + 2
        if "1" <= char <= "9":
            while j < len(pattern) and pattern[j].isdigit():
                j += 1
            # A backreference (to any group, even a later one) or an octal escape: valid either way.
            out.append("0" if in_class else "(?:)")
        elif char in "dDwWsSfnrtv0" or (char == "b" or (char == "B" and not in_class)):
            out.append("\\" + char)
        elif char in "pP" and pattern.startswith("{", j):
            end = pattern.find("}", j)
            if end < 0 or not re.fullmatch(r"[A-Za-z0-9_]+(=[A-Za-z0-9_]+)?", pattern[j + 1:end]):
                raise _Refused("invalid Unicode property escape")
            out.append("\\w" if char == "p" else "\\W")
            j = end + 1
        elif char == "c":
            control = pattern[j] if j < len(pattern) else ""
            if control.isascii() and (control.isalpha() or (in_class and (control.isdigit() or control == "_"))):
                out.append("\\x01")
                j += 1
            else:
                out.append("\\\\c")  # Annex B: a backslash and a `c`
        elif char == "x" and all(c in _HEX for c in pattern[j:j + 2]) and len(pattern[j:j + 2]) == 2:
            out.append(pattern[i:j + 2])
            j += 2
        elif char == "u":
            j = self._unicode_escape(j, out)
        elif char == "k" and not in_class:
            j = self._named_reference(j)
        elif char.isascii() and char.isalnum():
            out.append(char)  # an identity escape of a letter (Annex B)
        else:
            out.append(re.escape(char))
        return j

    def _unicode_escape(self, j: int, out: list[str]) -> int:
        pattern = self.pattern
        four = pattern[j:j + 4]
        if len(four) == 4 and all(c in _HEX for c in four):
            out.append("\\u" + four)
            return j + 4
        braced = _BRACED_CODE_POINT.match(pattern, j)  # in place: a copy per escape is quadratic
        if braced and int(braced[1], 16) <= 0x10FFFF:
            out.append(f"\\U{int(braced[1], 16):08x}")
            return braced.end()
        out.append("u")  # Annex B: an identity escape
        return j

    def _named_reference(self, j: int) -> int:
        """`\\k<name>`: resolved once every group name is known (a group may come later)."""
        named = self.pattern.startswith("<", j) and j < self.last_angle
        end = self.pattern.find(">", j) if named else -1
        name = self.pattern[j + 1:end] if end > 0 else None
        self.named_references.append((len(self.out), name))
        self.out.append("k")
        return end + 1 if name is not None else j

    def _resolve_named_references(self) -> None:
        for index, name in self.named_references:
            if not self.names:
                if name is not None:
                    self.out[index] = re.escape(f"k<{name}>")  # Annex B: no named groups, plain text
            elif name is None:
                raise _Refused("\\k must name a group")
            elif name not in self.names:
                raise _Refused(f"\\k<{name}> names no group")
            else:
                self.out[index] = "(?:)"
