"""A cap on the options an `extensions` statement gives its ranges, checked before protoc runs.

protoc gives the `[...]` options of `extensions 1, 2, 5 to 9 [...]` to each range the
statement declares, and the canonical text prints them once per range: N ranges under M
options are N x M assignments for protoc to interpret (or to report as unknown, one error
each) and for the printer to print. protoc cannot be interrupted by the work budget, so a
54 KB schema of 3,000 ranges under 3,000 options held a worker for minutes and took
gigabytes. A schema asking for more than `MAX_COPIES` such assignments is refused before
protoc sees it; a real one asks for a handful.
"""
from __future__ import annotations

from app.formats.protobuf.tokens import CLOSING, OPENING, pieces

MAX_COPIES = 10_000
REFUSED = (f"the options of extensions statements, given to each range they declare, would be more than "
           f"{MAX_COPIES} assignments")


def too_many_copies(text: str) -> bool:
    """Whether the `extensions` statements of `text` ask for more than `MAX_COPIES` options on
    ranges. A text that cannot (it never says `extensions`, or it has too few commas and
    equals signs to) is not cut into pieces at all."""
    if "extensions" not in text or (text.count(",") + 1) * text.count("=") <= MAX_COPIES:
        return False
    copies = 0
    ranges = entries = 0
    state = "outside"  # or "ranges" (after `extensions`), "options" (inside its `[...]`)
    depth = 0
    for piece in pieces(text):
        word = piece.text
        if state == "outside":
            if word == "extensions":
                state, ranges, entries = "ranges", 1, 0
        elif word == ";" and depth == 0:
            copies += ranges * entries
            if copies > MAX_COPIES:
                return True
            state = "outside"
        elif word in OPENING:
            if state == "ranges" and word == "[" and depth == 0:
                state, entries = "options", 1
            else:
                depth += 1
        elif word in CLOSING:
            depth = max(depth - 1, 0)
        elif word == "," and depth == 0:
            if state == "ranges":
                ranges += 1
            else:
                entries += 1
    return False
