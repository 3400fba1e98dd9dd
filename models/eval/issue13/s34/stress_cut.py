"""held_stress with the cut-grid patch: python models/eval/issue13/s34/stress_cut.py KINDS OUT.json [--off] [--seed N]"""

import os
import sys

sys.path.insert(0, "tools")
sys.path.insert(0, os.path.dirname(__file__))
if "--off" not in sys.argv:
    import cut_patch  # noqa
import held_stress

args = [sys.argv[1], "--folds", "data/models/fRM3_{set}", "--json", sys.argv[2]]
if "--seed" in sys.argv:
    args += ["--seed", sys.argv[sys.argv.index("--seed") + 1]]
held_stress.main(args)
if "--off" not in sys.argv:
    print(cut_patch.STATS)
