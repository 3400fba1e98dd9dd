"""Straightened crops: the classifier sees every card upright-or-upside-down, portrait."""

import cv2
import numpy as np
import pytest

from models.crops import CLASSES, CROP_H, CROP_W, crop_from_quad, order_portrait, synth_crop
from vision.render import render_card


def test_classes_are_the_54_faces_then_back():
    assert len(CLASSES) == 55 and CLASSES[-1] == "back" and len(set(CLASSES)) == 55


@pytest.mark.parametrize("angle", [0, 30, 90, 135, 180, 270, 333])
def test_order_portrait_puts_the_short_side_on_top(angle):
    box = cv2.boxPoints(((200.0, 150.0), (56.0, 87.0), float(angle)))
    q = order_portrait(box)
    assert np.linalg.norm(q[1] - q[0]) == pytest.approx(56, abs=0.5)
    assert np.linalg.norm(q[2] - q[1]) == pytest.approx(87, abs=0.5)
    # clockwise in image coordinates (y down): positive signed area
    area = 0.5 * sum(q[i, 0] * q[(i + 1) % 4, 1] - q[(i + 1) % 4, 0] * q[i, 1] for i in range(4))
    assert area > 0


def test_crop_of_a_turned_card_matches_the_upright_card():
    art = render_card("yellow-7", height=300)[..., :3]
    h, w = art.shape[:2]
    upright = crop_from_quad(art, [[0, 0], [w, 0], [w, h], [0, h]])
    assert upright.shape == (CROP_H, CROP_W, 3)
    M = cv2.getRotationMatrix2D((w / 2, h / 2), 90, 1.0)
    M[:, 2] += [300 - w / 2, 300 - h / 2]
    turned = cv2.warpAffine(art, M, (600, 600))
    corners = cv2.transform(np.float32([[[0, 0], [w, 0], [w, h], [0, h]]]), M)[0]
    crop = crop_from_quad(turned, corners)
    # either the same card or the same card turned 180 degrees
    d = min(
        np.abs(crop.astype(int) - upright).mean(),
        np.abs(crop[::-1, ::-1].astype(int) - upright).mean(),
    )
    assert d < 12


def test_synth_crop_is_a_classifier_input_and_seeded():
    art = render_card("blue-skip", height=192, seed=1)
    a = synth_crop(np.random.default_rng(5), art)
    b = synth_crop(np.random.default_rng(5), art)
    assert a.shape == (CROP_H, CROP_W, 3) and a.dtype == np.uint8
    assert np.array_equal(a, b)


def test_a_covering_card_hides_part_of_the_crop():
    art = render_card("blue-skip", height=192, seed=1)
    other = render_card("red-2", height=192, seed=2)
    plain = synth_crop(np.random.default_rng(5), art).astype(np.float32)
    covered = synth_crop(np.random.default_rng(5), art, covers=[other], cover_p=1.0,
                         cover_max=0.7).astype(np.float32)
    assert covered.shape == plain.shape
    assert np.abs(covered - plain).mean() > 10


def test_train_params_keep_each_colour_in_its_hue_range():
    import cv2

    from models.crops import HUE_RANGES, train_params

    rng = np.random.default_rng(3)
    for _ in range(20):
        p = train_params(rng, "2010s", wide=1.0)
        for colour, (lo, hi) in HUE_RANGES.items():
            art = render_card(f"{colour}-5", height=60, params=p)
            hsv = cv2.cvtColor(art[..., :3], cv2.COLOR_BGR2HSV).reshape(-1, 3)
            sat = hsv[(hsv[:, 1] > 60) & (art[..., 3].reshape(-1) > 0)]
            if len(sat) < 50:
                continue
            h = float(np.median(sat[:, 0]))
            h = h - 180 if colour == "red" and h > 90 else h
            assert lo - 3 <= h <= hi + 3, (colour, h)


def _angle_between(card: np.ndarray, box: np.ndarray) -> float:
    """The smallest turn, in degrees, between two card-shaped quads' long sides."""
    def long_axis(q):
        q = order_portrait(np.asarray(q, np.float32))
        v = q[3] - q[0]  # top-left to bottom-left: the long side
        return np.degrees(np.arctan2(v[1], v[0]))

    d = (long_axis(card) - long_axis(box)) % 180
    return min(d, 180 - d)


def test_a_turned_box_lies_off_its_card_as_the_turn_search_reads_it():
    from models.crops import BOX_TURN

    art = render_card("red-7", height=192, seed=1)
    plain, turned = [], []
    for seed in range(12):
        for share, into in ((0.0, plain), (1.0, turned)):
            d = {}
            synth_crop(np.random.default_rng(seed), art, cut_p=0.0, detail=d, box_turn=share)
            into.append(_angle_between(d["card"], d["box"]))
    assert max(plain) < BOX_TURN[0]  # the detector-like jitter alone: a few degrees
    assert min(turned) >= BOX_TURN[0] - 8 and max(turned) <= BOX_TURN[1] + 8
    assert np.mean(turned) > 15


def test_a_keystoned_card_is_seen_at_a_strong_slant_and_zero_draws_nothing_more():
    from models.crops import KEYSTONE

    art = render_card("red-7", height=192, seed=1)

    def sides(q):  # the shorter over the longer of each pair of opposite sides
        q = np.asarray(q, np.float64)
        n = [np.linalg.norm(q[(k + 1) % 4] - q[k]) for k in range(4)]
        return min(min(n[0], n[2]) / max(n[0], n[2]), min(n[1], n[3]) / max(n[1], n[3]))

    plain, slanted = [], []
    for seed in range(12):
        for share, into in ((0.0, plain), (1.0, slanted)):
            d = {}
            synth_crop(np.random.default_rng(seed), art, cut_p=0.0, detail=d, keystone=share)
            into.append(sides(d["card"]))
    assert min(plain) > 0.85  # the slant jitter alone
    assert max(slanted) <= 1 - 2 * KEYSTONE[0] + 0.1 and min(slanted) >= 1 - 2 * KEYSTONE[1] - 0.1
    assert np.array_equal(synth_crop(np.random.default_rng(7), art),
                          synth_crop(np.random.default_rng(7), art, keystone=0.0))


def test_a_frame_edge_hides_part_of_the_card_filled_from_the_edge_and_zero_draws_nothing_more():
    from models.crops import FRAME_CUT

    art = render_card("red-7", height=192, seed=1)
    for seed in range(8):
        d = {}
        synth_crop(np.random.default_rng(seed), art, cut_p=0.0, detail=d, frame_cut=1.0)
        n, edge = d["frame"]
        card, img = d["card"].astype(np.float64), d["image"].astype(np.float32)
        along = card @ n
        hidden = (along.max() - edge) / (along.max() - along.min())
        assert FRAME_CUT[0] - 1e-6 <= hidden <= FRAME_CUT[1] + 1e-6
        # beyond the edge, each pixel is the edge's pixel nearest it: constant along n
        centre = card.mean(axis=0)
        base = centre + (edge - centre @ n) * n  # on the edge, in line with the card's centre
        at_edge = img[int(round(base[1])), int(round(base[0]))]
        for step in (4.0, 9.0):
            p = base + step * n
            if 0 <= p[0] < img.shape[1] - 1 and 0 <= p[1] < img.shape[0] - 1:
                assert np.abs(img[int(round(p[1])), int(round(p[0]))] - at_edge).max() < 40
        # the box is still the whole card, as the recognizer grows a cut box to one
        box = d["box"].astype(np.float64)
        assert (box @ n).max() > edge + 0.5 * (along.max() - edge)
        d0 = {}
        synth_crop(np.random.default_rng(seed), art, cut_p=0.0, detail=d0)
        assert d0["frame"] is None
    assert np.array_equal(synth_crop(np.random.default_rng(7), art),
                          synth_crop(np.random.default_rng(7), art, frame_cut=0.0))


def test_a_lamps_glare_is_a_band_across_the_card_and_zero_draws_nothing_more():
    from models.crops import GLARE_STRENGTH, GLARE_WIDTH, _glare_band

    card = np.float32([[60, 40], [116, 40], [116, 127], [60, 127]])  # 56 x 87, upright
    h = 87.0
    for seed in range(12):
        band = _glare_band(np.random.default_rng(seed), card, h, (170, 180))[..., 0]
        assert band.shape == (170, 180) and band.dtype == np.float32
        peak = float(band.max())
        assert GLARE_STRENGTH[0] * 0.99 <= peak <= GLARE_STRENGTH[1]
        # it crosses the card: some of the card burnt at least half the peak
        inside = band[40:127, 60:116]
        assert (inside >= 0.5 * peak).mean() > 0.05
        # a band, not a wash: somewhere in the image it has faded to a tenth; no wider than
        # its widest, so at most that share of the card lies under its flat top
        assert band.min() < 0.1 * peak
        assert (inside >= 0.9 * peak).mean() < GLARE_WIDTH[1] * 1.6
    art = render_card("green-8", height=192, seed=2)
    assert np.array_equal(synth_crop(np.random.default_rng(7), art),
                          synth_crop(np.random.default_rng(7), art, glare_band=0.0))
    lit = [synth_crop(np.random.default_rng(s), art, glare_band=1.0) for s in range(6)]
    assert all(c.shape == (CROP_H, CROP_W, 3) for c in lit)


def _edges(img: np.ndarray) -> np.ndarray:
    """How sharply each pixel's brightness bends (the absolute Laplacian of its grey)."""
    return np.abs(cv2.Laplacian(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.CV_32F))


def test_a_shaken_crop_is_smeared_along_a_line_and_zero_draws_nothing_more():
    from models.crops import SHAKE

    art = render_card("yellow-3", height=192, seed=2)
    assert np.array_equal(synth_crop(np.random.default_rng(7), art),
                          synth_crop(np.random.default_rng(7), art, shake=0.0))

    def scene(seed, shake):
        d = {}
        synth_crop(np.random.default_rng(seed), art, cut_p=0.0, detail=d, shake=shake)
        return d["image"].astype(np.float32)

    # shaken scenes are softer than the same seeds' unshaken scenes
    def sharpness(img):  # the scene's strongest edges, in any direction
        return float(np.percentile(_edges(img), 99))

    assert np.mean([sharpness(scene(s, 1.0)) for s in range(10)]) < 0.7 * np.mean(
        [sharpness(scene(s, 0.0)) for s in range(10)])
    assert 0 < SHAKE[0] < SHAKE[1] < 0.3


def test_a_crop_with_no_card_is_cut_from_a_room_or_a_table_and_trained_towards_no_class():
    import torch

    from models.crops import not_a_card
    from models.train_classifier import uniform_loss

    crops = [not_a_card(np.random.default_rng(s), None, shake=0.5) for s in range(8)]
    assert all(c.shape == (CROP_H, CROP_W, 3) and c.dtype == np.uint8 for c in crops)
    assert np.array_equal(crops[3], not_a_card(np.random.default_rng(3), None, shake=0.5))
    assert len({c.tobytes() for c in crops}) == 8
    # no card's sharp edges: far softer than a card's crop from the same kind of draw
    art = render_card("yellow-3", height=192, seed=2)

    cards = [synth_crop(np.random.default_rng(s), art) for s in range(8)]
    assert np.median([_edges(c).mean() for c in crops]) < 0.5 * np.median([_edges(c).mean() for c in cards])
    # the loss it trains with is least when every class is equally likely, and pulls a sure
    # reading towards that
    k = len(CLASSES)
    flat = torch.zeros(2, k)
    assert abs(float(uniform_loss(flat)) - np.log(k)) < 1e-5
    sure = torch.zeros(2, k)
    sure[:, 7] = 6.0
    sure.requires_grad_(True)
    loss = uniform_loss(sure)
    assert float(loss.detach()) > np.log(k) + 1
    loss.backward()
    assert (sure.grad[:, 7] > 0).all()  # a step down the gradient lowers the sure class
