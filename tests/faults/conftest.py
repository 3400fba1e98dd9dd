"""The fault-injection suite (issue 16): each test breaks something the way a probe of the
running table did (a damaged log, a second instance, a hostile client, a fuzzed input) and
asserts the table refuses it cleanly. Shared helpers live in `faultkit.py`."""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
for p in (HERE, HERE.parent, HERE.parent.parent):  # faultkit, web_fakes, tools/
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))
