"""Schema policies: named, pluggable rules checked at registration and in CI (our extension).

`rule` defines what a rule is, `builtin`/`changes` the built-ins, `catalogue` which rules a
process has (plugins included), `document` the policy documents, `engine` the evaluation.
Nothing here knows of the registry's storage or HTTP, so `sqlregistry check` runs it offline.
"""
