"""The two ways the front door says no before authorization: a bad auth file, and a caller
whose credentials do not hold up."""
from __future__ import annotations


class AuthFileError(Exception):
    """The auth file is invalid: `where` names the entry (`[bearer]`, `users[2]`,
    `grants[0].subjects[1]`), `problem` what is wrong with it. At start-up it stops the
    server with one line; at run time the previous file stays in force."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(f"{where}: {problem}")
        self.where = where
        self.problem = problem


class Unauthenticated(Exception):
    """Credentials were missing or did not hold up. `reason` goes to the server log only:
    the caller always gets the same 401 body. `token_presented` adds
    `error="invalid_token"` to the Bearer challenge."""

    def __init__(self, reason: str, *, token_presented: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.token_presented = token_presented
