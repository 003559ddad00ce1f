"""The leading comment of each field of a `.proto` file's messages, as protoc attaches them:
the `//` lines or `/* */` block directly above a field (no blank line between), not a comment
separated from it by a blank line, nor one trailing the previous line's statement.

The registry keeps a Protobuf schema's text as registered, comments included; the serialized
descriptors it renders have no source info. The pipeline imports only `app.client` (not the
registry's `app.formats.protobuf` parser), and needs nothing but field names and comments, so
this reads just that much: a scanner of tokens (strings and comments kept whole), a stack of the
scopes it is in, and the comment block pending when a field statement starts. A text it cannot
follow gives fewer comments, never an error: comments are documentation.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_TOKEN = re.compile(r"""
    (?P<line>//[^\n]*)
  | (?P<block>/\*.*?\*/)
  | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<newline>\n)
  | (?P<space>[ \t\r\f\v]+)
  | (?P<word>[A-Za-z_][\w.]*)
  | (?P<other>.)
""", re.VERBOSE | re.DOTALL)
_NOT_FIELDS = {"option", "reserved", "extensions", "message", "enum", "oneof", "service", "extend", "rpc",
               "syntax", "package", "import", "edition"}


@dataclass
class _Statement:
    """The statement being read: its words before `=`, and the comment it starts with."""

    words: list[str]
    comment: str | None
    seen_equals: bool = False


def _comment_text(token: str) -> str:
    if token.startswith("//"):
        return token[2:].strip()
    lines = [line.strip().lstrip("*").strip() for line in token[2:-2].splitlines()]
    return " ".join(line for line in lines if line)


def field_comments(text: str) -> dict[str, dict[str, str]]:
    """Each message's full name (package included) -> its fields' leading comments, by field
    name; messages in the order the file declares them (the first is the file's first)."""
    package = ""
    found: dict[str, dict[str, str]] = {}
    scopes: list[tuple[str, str | None]] = []  # (kind, message full name or None)
    pending: list[str] = []  # the comment block directly above what comes next
    blank = False  # a blank line since the last comment: the block is detached
    newlines = 0
    line_used = False  # something (code or a comment) already stands on this line
    statement: _Statement | None = None
    for match in _TOKEN.finditer(text):
        kind, token = match.lastgroup, match.group()
        if kind == "space":
            continue
        if kind == "newline":
            newlines += 1
            line_used = False
            if newlines >= 2:
                blank = True
            continue
        newlines = 0
        trailing, line_used = line_used, True
        if kind in ("line", "block"):
            if statement is not None or trailing:
                continue  # inside a statement, or trailing the previous one on its line
            if blank:
                pending, blank = [], False
            pending.append(_comment_text(token))
            continue
        if statement is None:
            comment = " ".join(part for part in pending if part) if pending and not blank else None
            statement = _Statement([], comment or None)
            pending, blank = [], False
        if token == "{":
            words = statement.words
            if len(words) >= 2 and words[0] == "message":
                parent = next((name for _, name in reversed(scopes) if name), None)
                name = f"{parent}.{words[1]}" if parent else f"{package}.{words[1]}" if package else words[1]
                scopes.append(("message", name))
                found.setdefault(name, {})
            else:
                # a oneof's fields belong to the message around it; other blocks hold no fields of it
                scopes.append(("oneof" if words[:1] == ["oneof"] else "other", None))
            statement = None
        elif token == "}":
            if scopes:
                scopes.pop()
            statement = None
        elif token == ";":
            _finish(statement, scopes, found)
            if statement.words[:1] == ["package"] and len(statement.words) > 1:
                package = statement.words[1]
            statement = None
        elif token == "=":
            statement.seen_equals = True
        elif kind == "word" and not statement.seen_equals:
            statement.words.append(token)
        elif token in "<>," and not statement.seen_equals:
            statement.words.append(token)
    return found


def _finish(statement: _Statement, scopes: list[tuple[str, str | None]], found: dict[str, dict[str, str]]) -> None:
    """Records a field statement's comment under its message."""
    words = statement.words
    if not statement.seen_equals or not words or words[0] in _NOT_FIELDS or statement.comment is None:
        return
    message = None
    for kind, name in reversed(scopes):
        if kind == "message":
            message = name
            break
        if kind != "oneof":
            return  # an enum's values, a service's options
    if message is not None:
        found[message][words[-1]] = statement.comment
