"""`.proto` text cut into the pieces protoc's tokenizer can never see across: for telling
whether two texts differ in layout only, and for finding the extent of an option protoc
pointed at. This is not a parser: protoc still reads every text the registry keeps.

A piece is a string literal (quotes and escapes included), one of the symbols `{ } [ ] ( )
< > ; = , : /`, or a run of any other characters up to whitespace, a comment, a quote or one
of those symbols. protoc's tokens never contain whitespace or those symbols outside string
literals and never span a comment, so each run is one or more whole protoc tokens, and two
texts cut into the same pieces read as the same tokens to protoc: they differ only in
whitespace and comments, which change the source info and nothing else.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from app.formats import work_budget

# protoc's whitespace is ASCII's; anything else (a no-break space) is part of a run.
_SEPARATOR = r"(?:[ \t\n\r\v\f]+|//[^\n]*|/\*.*?(?:\*/|\Z))"
_PIECE = r"""("(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?|[{}\[\]()<>;=,:]|/(?![/*])|[^ \t\n\r\v\f{}\[\]()<>;=,:/"']+)"""
_PIECES = re.compile(_SEPARATOR + "*" + _PIECE, re.DOTALL)
# Appended to every text, so that separators are always followed by a piece: trailing ones
# never make the pattern backtrack into a comment or retry at every later position.
_END = "\n;"

# The pieces that open and close a bracketed run (a message body, a list, an option value).
OPENING, CLOSING = frozenset("{[(<"), frozenset("}])>")

# Pieces are compared in batches this long between two looks at the work budget.
_BATCH = 1 << 16


@dataclass(frozen=True)
class Piece:
    """One piece and where it starts and ends in the text (character offsets)."""

    text: str
    start: int
    end: int


def pieces(text: str) -> Iterator[Piece]:
    for count, match in enumerate(_PIECES.finditer(text + _END)):
        if match.start(1) >= len(text):
            return
        if count % _BATCH == 0:
            work_budget.check()
        yield Piece(match.group(1), match.start(1), match.end(1))


def same_pieces(a: str, b: str) -> bool:
    """Whether `a` and `b` differ in whitespace and comments only (linear in their length)."""
    first, second = _PIECES.findall(a + _END), _PIECES.findall(b + _END)
    work_budget.check()
    return first == second
