"""`python -m models.train_corner` with `--corners`' hollow rim kept on the wild cards only
(every other face's printing drawn with the same random draws, its rim set back to 0): the
thirty-second session's next try after `cornerW2` read a dotted cloth as eleven `green-9`s.

    python models/eval/issue13/s32/train_corner_wildrim.py TRAIN_CORNER_ARGS...
"""

import sys
from dataclasses import replace

import models.train_classifier as tc
from models.train_corner import main

if __name__ == "__main__":
    from vision import render

    card = render.render_card

    def render_card(card_id, *args, params=None, **kwargs):
        if params is not None and params.corner_rim and not card_id.startswith("wild"):
            params = replace(params, corner_rim=0.0)  # hollow only where a wild's corner is
        return card(card_id, *args, params=params, **kwargs)

    tc.render_card = render_card  # the bank renders through models.train_classifier's name
    sys.exit(main(sys.argv[1:]))
