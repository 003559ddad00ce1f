"""A compile process killed while a request waits on it: how tests make a crash mid-compile
happen at a known point, without racing the request."""
from __future__ import annotations

import fcntl
import os
import signal
import struct
import termios
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def pending_bytes(pid: int) -> int:
    """Bytes waiting in the pipe the process reads its requests from (its stdin); AssertionError
    once the process is gone (its parent ended it: the caller's budget ran out first)."""
    try:
        pipe = open(f"/proc/{pid}/fd/0", "rb", buffering=0)  # noqa: SIM115 - closed below
    except FileNotFoundError:
        raise AssertionError(f"process {pid} ended before the request reached it") from None
    with pipe:
        return struct.unpack("i", fcntl.ioctl(pipe.fileno(), termios.FIONREAD, b"\0\0\0\0"))[0]


def killed_while_asked(child: int, ask: Callable[[], T]) -> T:
    """What `ask()` returns (or raises) when `child` is stopped before it and killed once the
    request `ask` sends is waiting in its pipe."""
    os.kill(child, signal.SIGSTOP)  # it cannot answer: the request waits in its pipe
    outcome: list[tuple[T | None, BaseException | None]] = []

    def run() -> None:
        try:
            outcome.append((ask(), None))
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller's thread
            outcome.append((None, exc))

    thread = threading.Thread(target=run)
    thread.start()
    waiting = threading.Event()
    while not pending_bytes(child) and thread.is_alive():
        waiting.wait(0.01)
    os.kill(child, signal.SIGKILL)
    thread.join()
    value, error = outcome[0]
    if error is not None:
        raise error
    return value  # type: ignore[return-value]
