"""Every `sqlregistry` command: `main` parses and dispatches; each command family has its
module (serve and db in `main`, `check`/`register`, the offline policy check, transfers, auth)."""
