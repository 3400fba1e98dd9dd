"""`python -m models evaluate` with the cut-grid patch: python models/eval/issue13/s34/evaluate_cut.py ARGS..."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import cut_patch  # noqa: F401

from models.__main__ import main

sys.exit(main(["evaluate", *sys.argv[1:]]))
