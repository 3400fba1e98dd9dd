"""tools/held_stress.py with vision.recognizer.GREY_WORLD set from $GREY_WORLD (0 or 1; default 1).

    GREY_WORLD=0 python models/eval/issue13/s30/hs_gw.py mix --folds 'data/models/fRM3_{set}' --json F
"""
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))
import vision.recognizer as R  # noqa: E402

R.GREY_WORLD = os.environ.get("GREY_WORLD", "1") == "1"
import held_stress  # noqa: E402

raise SystemExit(held_stress.main(sys.argv[1:]))
