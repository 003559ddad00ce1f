"""`gunicorn wsgi:app`: the registry configured from REGISTRY_* variables.

Each worker builds the app after the fork. Under the deploy config the master has loaded
the auth file before forking, and a worker that finds it invalid on disk starts on that
copy. Otherwise an invalid auth file ends the worker with gunicorn's "failed to boot"
status (3), which stops the master instead of respawning the worker forever, after one
line naming the file, the entry and the problem. Under the deploy config (whose master has
checked the database) the storage is built after the worker's first answer
(app/storage/deferred.py); a bare `gunicorn wsgi:app` migrates and builds it at boot. The
deploy config's worker hook starts each worker's exporters runner as it boots; under a bare
`gunicorn wsgi:app` a worker starts it at its first request (the same runner either way).
"""
import sys

from app.server.factory import create_app
from app.security.errors import AuthFileError
from app.server.serving import master_auth_file
from app.settings import Settings

_settings = Settings.from_env()
try:
    app = create_app(_settings, auth_fallback=master_auth_file(), defer_storage=True, run_exporters=True)
except AuthFileError as exc:
    from app.security.reload import describe

    print(f"sqlregistry: error: {describe(_settings.auth_file, exc)}", file=sys.stderr, flush=True)
    sys.exit(3)
