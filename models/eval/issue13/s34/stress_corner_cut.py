"""held_stress with the corner_cut trial: python models/eval/issue13/s34/stress_corner_cut.py KINDS OUT.json [--seed N]"""

import os
import sys

sys.path.insert(0, "tools")
sys.path.insert(0, os.path.dirname(__file__))
import corner_cut_patch  # noqa: E402,F401
import held_stress  # noqa: E402

args = [sys.argv[1], "--folds", "data/models/fRM3_{set}", "--json", sys.argv[2]]
if "--seed" in sys.argv:
    args += ["--seed", sys.argv[sys.argv.index("--seed") + 1]]
held_stress.main(args)
