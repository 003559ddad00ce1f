"""`python -m app.pipeline decode ...`: see `app.pipeline.job`."""
import sys

from app.pipeline.job import main

sys.exit(main())
