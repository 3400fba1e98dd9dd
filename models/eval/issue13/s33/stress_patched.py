"""held_stress with the region patch: python models/eval/issue13/s33/stress_patched.py KINDS OUT.json [--off]"""

import sys

sys.path.insert(0, "tools")
sys.path.insert(0, __import__("os").path.dirname(__file__))
if "--off" not in sys.argv:
    import region_patch  # noqa
import held_stress

args = [sys.argv[1], "--folds", "data/models/fRM3_{set}", "--json", sys.argv[2]]
held_stress.main(args)
if "--off" not in sys.argv:
    print(region_patch.STATS)
