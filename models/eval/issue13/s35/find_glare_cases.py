"""Rendered held-up cards crossed by a glare band 60-90% white (as `tools/held_stress.py glare`
draws it), 120 seeds: which are named surely (0.5 or more) with the glare reading, without it,
both or neither (the shipped files). tests/test_deglare.py takes its cases from here.
python models/eval/issue13/s35/find_glare_cases.py"""
import numpy as np

from models.evaluate import _main_card
from models.held import held_scene, lamp_glare
from vision.recognizer import CardRecognizer
from vision.render import ALL_FACES, random_params, render_card


def glared(seed, card, design):
    rng = np.random.default_rng(seed)
    img, _ = held_scene(rng, render_card(card, height=400, rng=rng, params=random_params(rng, design)))
    return lamp_glare(rng, img, strength=(0.6, 0.9))


on = CardRecognizer.default(photos=True)
off = CardRecognizer.default(photos=True, deglare=False)
designs = ("classic", "2010s", "2020s")
stats = dict(both=0, only_on=0, only_off=0, neither=0)
for seed in range(120):
    card = ALL_FACES[seed * 7 % len(ALL_FACES)]
    design = designs[seed % 3]
    img = glared(seed, card, design)
    a, b = _main_card(off.recognize(img)), _main_card(on.recognize(img))
    ra = a is not None and a.card == card and a.confidence >= 0.5
    rb = b is not None and b.card == card and b.confidence >= 0.5
    key = "both" if ra and rb else "only_on" if rb else "only_off" if ra else "neither"
    stats[key] += 1
    if key in ("only_on", "only_off"):
        print(seed, card, design, key, a and (a.card, round(a.confidence, 2)), b and (b.card, round(b.confidence, 2), b.deglared), flush=True)
print(stats)
