"""A Schemathesis check for the run without credentials (loaded through SCHEMATHESIS_HOOKS):
every operation the document does not mark open (`security: []`) must answer exactly 401."""
from __future__ import annotations

from typing import Any

import schemathesis


@schemathesis.check
def refused_without_credentials(ctx: Any, response: Any, case: Any) -> None:
    if case.operation.definition.raw.get("security") == []:
        return
    if response.status_code != 401:
        raise AssertionError(
            f"{case.method} {case.path} answered {response.status_code} to a request without credentials"
        )
