"""Rendered close-ups cut by the frame (tests/test_recognizer.py's `_card_on_table`), read by
the shipped files with the code of a checkout: the first two framings are cut at the top, the
bottom and one side; the third only at the top, the card lying sideways.

    python models/eval/issue13/s34/closeup_try.py CHECKOUT
"""

import sys

sys.path[:0] = [sys.argv[1], sys.argv[1] + "/tests"]

from test_recognizer import _card_on_table  # noqa: E402

from vision.recognizer import CardRecognizer  # noqa: E402

rec = CardRecognizer.default(photos=True)
for card in ["red-6", "blue-9", "yellow-2", "green-3", "red-5", "blue-0", "green-8", "yellow-4"]:
    for centre, long_side, angle in (((100, 240), 800.0, 0.0), ((540, 200), 760.0, 5.0), ((320, 120), 560.0, 90.0)):
        img, _ = _card_on_table(card, centre, angle, long_side=long_side)
        found = rec.recognize(img)
        d = max(found, key=lambda d: d.detector_confidence) if found else None
        print(card, centre, d and d.card, d and round(d.confidence, 2), d and tuple(round(v) for v in d.box))
