"""Every `sqlregistry` command: `main` parses and dispatches; each command family has its
module (`db`, `audit`, `check`/`register` and the offline policy check, `transfer`, `auth`).
"""

PROG = "sqlregistry"
