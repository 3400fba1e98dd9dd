"""The measuring scenes of models/evaluate.py: fanned hands and table scenes, and how they are
scored (which faces a reader reports)."""

import numpy as np
import pytest

from models.evaluate import eval_fan, eval_table, fan_scene, table_scene


class _Reads:
    """A reader that reports given faces: a perfect one, or one that sees nothing."""

    def __init__(self, scene, perfect: bool):
        self.scene, self.perfect = scene, perfect

    def recognize(self, img):
        from vision.types import CardDetection

        faces = self.scene(img) if self.perfect else []
        return [CardDetection(card=c, confidence=0.9, box=(0, 0, 1, 1), quad=((0, 0), (1, 0), (1, 1), (0, 1)))
                for c in faces]


def test_a_fan_shows_every_card_but_the_top_one_as_a_strip():
    img, picked, visible = fan_scene(np.random.default_rng(1))
    assert 3 <= len(picked) <= 6 and len(set(picked)) == len(picked)
    assert visible[-1] == 1.0 and all(0.2 < v < 0.5 for v in visible[:-1])
    assert img.shape == (480, 640, 3)


def test_a_table_scene_says_which_cards_a_player_can_read():
    rng = np.random.default_rng(2)
    for _ in range(5):
        img, picked, visible, shown = table_scene(rng)
        assert 4 <= len(picked) <= 13 and len(picked) == len(visible) == len(shown)
        assert visible[-1] == 1.0 and shown[-1]  # the last card laid lies on top, whole
        assert all(s for v, s in zip(visible, shown, strict=True) if v == 1.0)
        assert not any(s for v, s in zip(visible, shown, strict=True) if v < 0.02)


@pytest.mark.parametrize("scene, evaluate, recall", [
    (fan_scene, eval_fan, "recall_covered"), (table_scene, eval_table, "recall_readable")])
def test_a_reader_of_every_face_scores_one_and_a_blind_one_zero(scene, evaluate, recall):
    # the reader is told the faces of the scene drawn from the same seed, in step with it
    seed = 5
    truth = np.random.default_rng(seed)

    def faces(img):
        return scene(truth)[1]

    perfect = evaluate(_Reads(faces, True), n=3, seed=seed)
    assert perfect[recall] == 1.0 and perfect["precision"] == 1.0
    blind = evaluate(_Reads(faces, False), n=3, seed=seed)
    assert blind[recall] == 0.0 and blind["precision"] == 0.0
