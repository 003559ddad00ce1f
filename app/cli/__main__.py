"""`python -m app.cli`: the `sqlregistry` command."""
import sys

from app.cli.main import main

sys.exit(main())
