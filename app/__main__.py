"""`python -m app` is `uno-table`."""

import sys

from app.cli import main

sys.exit(main())
