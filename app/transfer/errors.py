"""How a transfer ends other than well, one exception per exit code of the commands."""
from __future__ import annotations


class TransferError(Exception):
    """A runtime failure the operator must look at (exit 1): one line, no traceback."""


class Conflicts(Exception):
    """The preflight found conflicts, already printed one per line; nothing written (exit 3)."""


class Differences(Exception):
    """Verify found differences, already printed one per line (exit 4)."""
