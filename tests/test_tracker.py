"""Tracker behaviour on drawn frames with scripted detections: what becomes a fact, when,
and what must never be reported twice. Frames are drawn here (coloured cards, a skin-coloured
hand) so that the hand is found from pixels, exactly as on a camera."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.config import TrackerConfig
from vision.observations import CardsPlayed, CardsRevealed, LikelyDraw, PileCovered
from vision.tracker import TableTracker
from vision.types import CardDetection
from vision.zones import ZoneLayout

W, H = 640, 360
SKIN = (120, 150, 210)  # BGR, a mid skin tone
CARD_COLOURS = {"red": (40, 40, 220), "yellow": (40, 210, 240), "green": (60, 170, 60), "blue": (210, 130, 30)}


class Scene:
    """A table seen from above: zones from the default layout, cards as rotated coloured
    rectangles with a dark stripe (so their pose shows in the pixels), and a hand."""

    def __init__(self, config: TrackerConfig | None = None):
        self.zones = ZoneLayout.default_for(W, H)
        self.tracker = TableTracker(self.zones, config or TrackerConfig())
        self.cards: list[tuple[str, float, float, float]] = []  # card, cx, cy, angle
        self.n = 0
        self.rng = np.random.default_rng(0)
        self.paint: dict[str, tuple[int, int, int]] = {}  # a card printed in another colour

    def centre(self, zone: str) -> tuple[float, float]:
        x0, y0, x1, y1 = self.zones[zone].bounds()
        return (x0 + x1) / 2, (y0 + y1) / 2

    @staticmethod
    def quad(cx, cy, angle, w=40, h=62):
        a = math.radians(angle)
        c, s = math.cos(a), math.sin(a)
        return [(cx + x * c - y * s, cy + x * s + y * c) for x, y in ((-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2))]

    def image(self, hand: tuple[float, float] | None, arm: str = "below", speck=None) -> np.ndarray:
        img = np.full((H, W, 3), 235, np.uint8)
        for card, cx, cy, angle in self.cards:
            q = np.array(self.quad(cx, cy, angle), np.float32)
            colour = self.paint.get(card) or CARD_COLOURS.get(card.split("-")[0], (30, 30, 30))
            cv2.fillPoly(img, [np.round(q).astype(np.int32)], colour)
            mid = ((q[0] + q[1]) / 2, (q[2] + q[3]) / 2)
            cv2.line(img, tuple(np.round(mid[0]).astype(int)), tuple(np.round(mid[1]).astype(int)), (20, 20, 20), 5)
        if hand is not None:
            cv2.ellipse(img, (int(hand[0]), int(hand[1])), (45, 38), 0, 0, 360, SKIN, -1)
            x, y = int(hand[0]), int(hand[1])
            if arm == "below":
                cv2.rectangle(img, (x - 25, y), (x + 25, H), SKIN, -1)
            else:  # a player at the side: the arm comes in level from that edge
                cv2.rectangle(img, (x, y - 22), (W if arm == "right" else 0, y + 22), SKIN, -1)
        if speck is not None:  # a piece of skin apart from the hand (a thumb beyond a card)
            cv2.circle(img, (int(speck[0]), int(speck[1])), 22, SKIN, -1)
        noise = self.rng.integers(-2, 3, img.shape, dtype=np.int16)
        return np.clip(img.astype(np.int16) + noise, 0, 255).astype(np.uint8)

    def detections(self, visible=None, conf=0.9, extra=()) -> list[CardDetection]:
        out = []
        for card, cx, cy, angle in self.cards if visible is None else visible:
            out.append(reading(card, self.quad(cx, cy, angle), conf))
        return out + list(extra)

    def step(self, hand=None, dets=None, arm: str = "below", speck=None) -> list:
        self.n += 1
        img = self.image(hand, arm, speck)
        if dets is None:
            dets = [] if hand is not None and self._over_pile(hand) else self.detections()
        return self.tracker.update(self.n, self.n / 20, img, dets)

    def _over_pile(self, hand) -> bool:
        return self.zones["discard"].contains(hand)

    def run(self, frames: int, **kw) -> list:
        out = []
        for _ in range(frames):
            out += self.step(**kw)
        return out

    def play(self, *cards: tuple[str, float, float, float], hold: int = 3) -> list:
        """A hand comes in over the pile, lays the cards, stays, leaves; then calm."""
        cx, cy = self.centre("discard")
        out = []
        for k in range(4):  # hand moving in from below
            out += self.step(hand=(cx, H - (H - cy) * (k + 1) / 4))
        self.cards.extend(cards)
        out += self.run(hold, hand=(cx, cy))
        for k in range(3):  # hand leaving
            out += self.step(hand=(cx, cy + (H - cy) * (k + 1) / 3))
        return out


def reading(card: str, quad, conf: float = 0.9) -> CardDetection:
    """A detection of `card` with these corners (its box around them)."""
    xs, ys = [p[0] for p in quad], [p[1] for p in quad]
    return CardDetection(card, conf, (min(xs), min(ys), max(xs), max(ys)), tuple(quad), conf)


def played(obs) -> list[list[str]]:
    return [sorted(c.card for c in o.cards) for o in obs if isinstance(o, CardsPlayed)]


def test_a_card_laid_by_a_hand_is_reported_once_after_the_hand_leaves():
    s = Scene()
    cx, cy = s.centre("discard")
    s.run(5)
    during = s.play(("red-7", cx, cy, 10))
    assert played(during) == []  # never while the hand is over the pile
    after = s.run(10)
    assert played(after) == [["red-7"]]
    o = next(o for o in after if isinstance(o, CardsPlayed))
    assert 0.5 < o.confidence <= 1 and o.frame > 0
    assert o.to_json()["type"] == "discard" and o.to_json()["cards"][0]["card"] == "red-7"
    assert played(s.run(40)) == []  # the card lying there produces nothing new


def test_the_hand_is_found_from_pixels_and_reported_as_covered_then_clear():
    s = Scene()
    cx, cy = s.centre("discard")
    s.run(5)
    obs = s.play(("red-7", cx, cy, 10)) + s.run(5)
    flips = [o.covered for o in obs if isinstance(o, PileCovered)]
    assert flips[0] is True and flips[-1] is False


def test_flicker_and_single_frame_misreads_are_not_plays():
    s = Scene()
    cx, cy = s.centre("discard")
    s.run(3)
    s.play(("blue-3", cx, cy, 0))
    assert played(s.run(8)) == [["blue-3"]]
    # A wrong face for one frame, then a phantom card for two frames, no hand anywhere.
    d = s.detections()[0]
    wrong = [CardDetection("blue-8", 0.9, d.box, d.quad)]
    obs = s.run(1, dets=wrong)
    phantom = CardDetection("green-skip", 0.95, (cx + 40, cy - 20, cx + 80, cy + 40))
    obs += s.run(2, dets=s.detections(extra=[phantom]))
    obs += s.run(10)
    assert played(obs) == []


def test_covering_and_uncovering_the_pile_gives_no_duplicate():
    s = Scene()
    cx, cy = s.centre("discard")
    s.run(3)
    s.play(("green-4", cx, cy, 30))
    assert played(s.run(8)) == [["green-4"]]
    for _ in range(3):  # a hand rests on the pile and leaves, three times
        obs = s.play(hold=6) + s.run(8)
        assert played(obs) == []


def test_same_face_laid_on_the_same_face_is_a_new_card():
    s = Scene()
    cx, cy = s.centre("discard")
    s.run(3)
    s.play(("red-5", cx, cy, 20))
    assert played(s.run(8)) == [["red-5"]]
    # Another red 5, a few pixels and degrees off (a hand never lands it exactly where the
    # last one lies): same identity, a pose the tracker calls the same.
    s.play(("red-5", cx + 4, cy + 3, 26))
    assert played(s.run(8)) == [["red-5"]]


def test_several_cards_laid_at_once_are_one_multi_play():
    s = Scene()
    cx, cy = s.centre("discard")
    s.run(3)
    s.play(("red-9", cx - 25, cy, 5), ("blue-9", cx + 25, cy, -5))
    obs = s.run(10)
    assert played(obs) == [["blue-9", "red-9"]]


def test_reveal_zone_reports_the_stable_set_of_face_up_cards():
    s = Scene()
    rx, ry = s.centre("reveal")
    s.run(3)
    cards = [("red-1", rx - 60, ry, 90), ("wild", rx, ry, 90), ("green-skip", rx + 60, ry, 90)]
    s.cards.extend(cards)
    obs = s.run(2, dets=s.detections(visible=cards[:1]))  # laid one by one: not yet stable
    obs += s.run(8)
    reveals = [sorted(c.card for c in o.cards) for o in obs if isinstance(o, CardsRevealed)]
    assert reveals == [["green-skip", "red-1", "wild"]]
    s.cards.clear()
    obs = s.run(8)
    reveals = [sorted(c.card for c in o.cards) for o in obs if isinstance(o, CardsRevealed)]
    assert reveals == [[]]  # swept away


def test_a_hand_stopping_at_the_draw_pile_is_a_likely_draw_passing_over_is_not():
    s = Scene()
    dx, dy = s.centre("draw")
    s.run(3)
    obs = []
    for k in range(3):
        obs += s.step(hand=(dx, H - (H - dy) * (k + 1) / 3))
    obs += s.run(4, hand=(dx, dy))  # it stops to take a card
    for k in range(3):
        obs += s.step(hand=(dx, dy + (H - dy) * (k + 1) / 3))
    obs += s.run(4)
    draws = [o for o in obs if isinstance(o, LikelyDraw)]
    assert len(draws) == 1 and draws[0].inferred and draws[0].to_json()["type"] == "draw"
    # A hand sweeping across the draw zone without stopping.
    obs = []
    for k in range(8):
        obs += s.step(hand=(dx - 60 + 20 * k, dy))
    obs += s.run(4)
    assert not [o for o in obs if isinstance(o, LikelyDraw)]


@pytest.mark.parametrize("n_hits", [1, 2])
def test_a_card_seen_in_too_few_frames_is_not_a_play(n_hits):
    s = Scene(TrackerConfig(window=5, min_hits=3))
    cx, cy = s.centre("discard")
    s.run(3)
    s.play(("yellow-2", cx, cy, 0))
    obs = s.run(n_hits)  # seen briefly, then hidden by a (non-skin) object
    obs += s.run(10, dets=[])
    assert played(obs) == []


@pytest.mark.parametrize("seen", [2, 3])
def test_a_play_the_next_hand_hides_after_a_few_frames_is_still_its_own_play(seen):
    """A quick next player: the pile shows the laid card for only `seen` frames before the
    next hand is over it (the warm deck's 2-card plays were lost so, their cards reported
    with the next play)."""
    s = Scene(TrackerConfig(window=5, min_hits=3))
    cx, cy = s.centre("discard")
    s.run(3)
    first = ("green-7", cx - 10, cy, 20)
    obs = s.play(first) + s.run(seen)
    obs += s.run(3, hand=(cx, cy))  # the next hand is over the pile at once
    s.cards.append(("blue-6", cx + 15, cy + 5, 60))
    obs += s.run(2, hand=(cx, cy)) + s.run(10)
    assert played(obs) == [["green-7"], ["blue-6"]]


def test_a_multi_play_lists_the_card_on_top_last():
    s = Scene()
    cx, cy = s.centre("discard")
    s.run(3)
    # blue-9 lies over red-9: only part of red-9 shows (no corners found, smaller box).
    s.play(("red-9", cx - 20, cy, 0), ("blue-9", cx + 5, cy, 0))
    under = s.detections(visible=[("red-9", cx - 20, cy, 0)])[0]
    partial = CardDetection("red-9", 0.9, (under.box[0], under.box[1], cx - 15, under.box[3]))
    top = s.detections(visible=[("blue-9", cx + 5, cy, 0)])
    obs = s.run(10, dets=[*top, partial])  # detector order says nothing about stacking
    plays = [o for o in obs if isinstance(o, CardsPlayed)]
    assert len(plays) == 1 and [c.card for c in plays[0].cards] == ["red-9", "blue-9"]


def test_a_card_that_stays_hidden_does_not_block_the_pile_for_ever():
    s = Scene()
    cx, cy = s.centre("discard")
    s.run(3)
    s.play(("red-7", cx, cy, 0))
    assert played(s.run(8)) == [["red-7"]]
    # A dark object (not skin: a phone, a sleeve) is left on the card: the card vanishes.
    s.cards.append(("phone", cx, cy, 0))
    hidden = s.run(30, dets=[])
    assert played(hidden) == []
    s.play(("blue-2", cx + 60, cy, 10))
    obs = s.run(10, dets=s.detections(visible=[("blue-2", cx + 60, cy, 10)]))
    assert played(obs) == [["blue-2"]]


def _lay(s: Scene, card, dets_after) -> list:
    """A hand lays `card` on the pile and leaves; the detector reads `dets_after()` from then."""
    cx, cy = s.centre("discard")
    out = []
    for k in range(4):
        out += s.step(hand=(cx, H - (H - cy) * (k + 1) / 4), dets=[])
    s.cards.append(card)
    out += s.run(3, hand=(cx, cy), dets=[])
    for k in range(3):
        out += s.step(hand=(cx, cy + (H - cy) * (k + 1) / 3), dets=[])
    return out + s.run(10, dets=dets_after())


def test_an_older_card_first_read_during_a_play_is_not_reported_when_a_later_play_brushes_it():
    s = Scene()
    cx, cy = s.centre("discard")
    old = ("yellow-3", cx - 30, cy - 30, 0)
    s.cards.append(old)
    blue = ("blue-1", cx + 45, cy + 35, 0)
    # The yellow 3 lies there, but the detector does not read it yet (under a glare, say).
    assert played(_lay(s, blue, lambda: s.detections(visible=[blue]))) == [["blue-1"]]
    red = ("red-5", cx + 40, cy + 30, 10)
    assert played(_lay(s, red, lambda: s.detections(visible=[old, red]))) == [["red-5"]]
    # The next card lands half over the yellow 3: its pixels change, it is still not new.
    green = ("green-5", cx - 20, cy - 5, 35)
    assert played(_lay(s, green, lambda: s.detections(visible=[old, red, green]))) == [["green-5"]]


def test_a_card_unsure_of_its_face_does_not_make_the_card_under_it_look_new():
    s = Scene()
    cx, cy = s.centre("discard")
    red = ("red-5", cx, cy, 0)
    assert played(s.play(red) + s.run(8)) == [["red-5"]]
    green = ("green-2", cx + 12, cy + 10, 30)
    # The new card's face is read at 0.4 only (below the tracker's median 0.5); the red 5's
    # pixels changed under it. Nothing is reported rather than the red 5 again.
    obs = _lay(s, green, lambda: s.detections(visible=[red]) + s.detections(visible=[green], conf=0.4))
    assert played(obs) == []


def _reach(s: Scene, start, target, arm: str, stay: int = 2) -> list:
    """A hand comes in from `start` to `target` (frame pixels), stays, goes back."""
    path = [(start[0] + (target[0] - start[0]) * k / 5, start[1] + (target[1] - start[1]) * k / 5) for k in range(1, 6)]
    obs = []
    for p in path:
        obs += s.step(hand=p, arm=arm)
    obs += s.run(stay, hand=target, arm=arm)
    for p in reversed(path[:-1]):
        obs += s.step(hand=p, arm=arm)
    return obs + s.run(4)


def test_a_draw_is_seen_from_the_fingertips_even_when_the_arm_crosses_the_discard_pile():
    s = Scene()
    dx, dy = s.centre("draw")
    cx, cy = s.centre("discard")
    s.run(3)
    # A player on the right reaches over the discard pile to the draw pile and takes a card.
    obs = _reach(s, (W - 20, dy), (dx, dy), arm="right")
    assert len([o for o in obs if isinstance(o, LikelyDraw)]) == 1
    # A player on the left plays onto the discard pile, the arm crossing the draw pile.
    obs = _reach(s, (20, cy), (cx, cy), arm="left", stay=4)
    assert not [o for o in obs if isinstance(o, LikelyDraw)]


def test_a_revealed_hand_leaves_out_slivers_and_faces_read_without_confidence():
    s = Scene()
    rx, ry = s.centre("reveal")
    s.run(3)
    cards = [("red-1", rx - 60, ry, 90), ("wild", rx, ry, 90)]
    s.cards.extend(cards)
    sliver = CardDetection("red-7", 0.9, (rx + 40, ry - 5, rx + 46, ry + 25),
                           ((rx + 40, ry - 5), (rx + 46, ry - 5), (rx + 46, ry + 25), (rx + 40, ry + 25)), 0.9)
    unsure = CardDetection("green-1", 0.4, (rx + 80, ry - 20, rx + 120, ry + 40),
                           ((rx + 80, ry - 20), (rx + 120, ry - 20), (rx + 120, ry + 40), (rx + 80, ry + 40)), 0.6)
    obs = s.run(8, dets=s.detections() + [sliver, unsure])
    reveals = [sorted(c.card for c in o.cards) for o in obs if isinstance(o, CardsRevealed)]
    assert reveals == [["red-1", "wild"]]


def test_a_partly_covered_card_whose_box_turned_is_still_the_card_that_lay_there():
    s = Scene()
    cx, cy = s.centre("discard")
    old = ("red-3", cx, cy, 0)
    assert played(_lay(s, old, lambda: s.detections(visible=[old]))) == [["red-3"]]
    new = ("red-4", cx + 25, cy + 30, 35)
    # Half covered, the old card's visible part gets a box turned 30 degrees.
    turned = s.detections(visible=[("red-3", cx, cy, 30)])
    obs = _lay(s, new, lambda: turned + s.detections(visible=[new]))
    assert played(obs) == [["red-4"]]


def test_a_piece_of_the_hand_apart_from_it_on_the_draw_pile_is_not_a_draw():
    s = Scene()
    dx, dy = s.centre("draw")
    cx, cy = s.centre("discard")
    s.run(3)
    obs = []
    for k in range(1, 6):  # a hand from below lays a card on the discard pile...
        obs += s.step(hand=(cx, H - (H - cy) * k / 5), speck=(dx + 20, dy + 30) if k > 2 else None)
    obs += s.run(5, hand=(cx, cy), speck=(dx + 20, dy + 30))  # ...its thumb resting apart
    obs += s.run(5)
    assert not [o for o in obs if isinstance(o, LikelyDraw)]


def test_an_older_card_misread_once_a_new_card_covers_part_of_it_is_not_reported():
    s = Scene()
    cx, cy = s.centre("discard")
    red = ("red-5", cx, cy, 0)
    assert played(s.play(red) + s.run(8)) == [["red-5"]]
    green = ("green-2", cx + 24, cy + 20, 30)
    # With a corner of it covered, the red 5 reads as a 6 where it lay; only the pixels
    # under the green card changed, so it is the old card, not a second play.
    misread = ("red-6", cx, cy, 0)
    obs = _lay(s, green, lambda: s.detections(visible=[misread, green]))
    assert played(obs) == [["green-2"]]


def test_a_fan_whose_top_card_has_the_face_of_the_card_it_covers_is_reported_whole():
    s = Scene()
    cx, cy = s.centre("discard")
    assert played(s.play(("blue-6", cx, cy, 0)) + s.run(8)) == [["blue-6"]]
    # A multi-play of three sixes fanned to the left; its top card, another blue 6, lands
    # almost where the old blue 6 lay (the pose the tracker calls the same).
    fan = [
        ("red-6", cx - 52, cy + 2, 2),
        ("yellow-6", cx - 26, cy + 1, -3),
        ("blue-6", cx + 5, cy + 4, 7),
    ]
    assert played(s.play(*fan) + s.run(10)) == [["blue-6", "red-6", "yellow-6"]]


def test_a_box_far_smaller_than_a_card_is_a_part_of_one_not_a_card():
    s = Scene()
    cx, cy = s.centre("discard")
    red = ("red-5", cx, cy, 0)
    assert played(s.play(red) + s.run(25)) == [["red-5"]]
    green = ("green-2", cx + 30, cy + 10, 0)
    # The corner index of a card (here read as a yellow 8) boxed on its own, where the
    # green card landed: the pixels there changed, but it is no card of its own.
    corner = reading("yellow-8", Scene.quad(cx + 42, cy - 12, 0, w=10, h=15))
    obs = _lay(s, green, lambda: s.detections(visible=[red, green], extra=[corner]))
    assert played(obs) == [["green-2"]]


def test_a_faint_box_twice_a_card_read_on_the_bare_pile_does_not_make_cards_look_small():
    """The mat's printed discard field, boxed by the detector and named faintly (a green 1 at
    0.41) frame after frame before the first play, taught the tracker that cards are twice
    their size: the first real cards were then dropped as parts of one (seed 3, plays 1-2)."""
    s = Scene()
    cx, cy = s.centre("discard")
    field = reading("green-1", Scene.quad(cx, cy, 0, w=80, h=124), conf=0.41)
    s.run(40, dets=[field])
    assert played(s.play(("blue-skip", cx, cy, 0)) + s.run(12)) == [["blue-skip"]]


def test_a_twin_laid_beside_its_face_is_new_even_if_boxed_a_little_small():
    s = Scene()
    cx, cy = s.centre("discard")
    assert played(s.play(("red-1", cx, cy, 0)) + s.run(8)) == [["red-1"]]
    twin = ("red-1", cx + 6, cy + 8, 0)
    # The detector boxes the new red 1 a little small, inside the old one's box (as it
    # boxes a partly covered card): its pixels changed where it shows, so it is new.
    small = reading("red-1", Scene.quad(cx + 6, cy + 8, 0, w=34, h=52))
    obs = _lay(s, twin, lambda: [small])
    assert played(obs) == [["red-1"]]


def test_a_twin_laid_where_its_buried_twin_lies_is_new():
    """Seed 3, the warm cheap print's game, play 37: a yellow 6 laid where the other yellow 6
    lay, buried under a blue 4 since. The new one was boxed inside the buried one's box and
    only a third of its box changed (the rest lay over cards of a like grey), so it was taken
    for the old card boxed anew and the play was lost. A card not seen when the pile last
    settled cannot be the one now seen: the twin is a new card."""
    s = Scene()
    cx, cy = s.centre("discard")
    old = ("red-1", cx, cy, 0)
    assert played(_lay(s, old, lambda: s.detections(visible=[old]))) == [["red-1"]]
    # A red 5 over most of it: the red 1's edge that still shows is not read.
    over = ("red-5", cx, cy + 14, 0)
    assert played(_lay(s, over, lambda: s.detections(visible=[over]))) == [["red-5"]]
    # The twin, boxed small inside the buried one's box; under a quarter of its box changed
    # (it lies on red cards but for its top).
    twin = ("red-1", cx, cy - 14, 0)
    small = reading("red-1", Scene.quad(cx, cy - 14, 0, w=34, h=52))
    obs = _lay(s, twin, lambda: s.detections(visible=[over]) + [small])
    assert played(obs) == [["red-1"]]


def _bury(s: Scene, face: str) -> tuple[float, float]:
    """`face` laid at the pile's centre, then a `green-3` right over it: the pile's centre."""
    cx, cy = s.centre("discard")
    old = (face, cx, cy, 0)
    assert played(_lay(s, old, lambda: s.detections(visible=[old]))) == [[face]]
    green = ("green-3", cx, cy, 0)
    assert played(_lay(s, green, lambda: s.detections(visible=[green]))) == [["green-3"]]
    return cx, cy


def test_a_twin_laid_just_where_its_buried_twin_lies_is_new():
    """A card laid at the very place of its twin, buried under other cards since: against
    the buried card's look when last seen the new one looks unchanged, so it was taken for a
    re-read and the play was lost (the generic game of seed 3 sees its play 9 since). Buried
    when the pile last settled, the old card says nothing: the pile's pixels since then decide."""
    s = Scene()
    cx, cy = _bury(s, "red-1")
    top = ("yellow-5", cx + 8, cy + 25, 0)  # over the green 3's lower half, which is no longer read
    assert played(_lay(s, top, lambda: s.detections(visible=[top]))) == [["yellow-5"]]
    twin = ("red-1", cx, cy, 0)  # at the very pose of the buried red 1
    assert played(_lay(s, twin, lambda: s.detections(visible=[twin, top]))) == [["red-1"]]


def test_a_twin_laid_a_quarter_turn_from_its_buried_twin_and_boxed_smaller_is_new():
    """The warm print's game of seed 4, play 170: a red reverse laid a quarter turn from its
    buried twin, centre within a tenth of a card of it, and boxed by the part that shows,
    smaller than the twin was. A card seen smaller than it was is partly covered only if it
    was seen when the pile last settled; a buried one was not, and the play was lost."""
    s = Scene()
    cx, cy = _bury(s, "red-reverse")
    twin = ("red-reverse", cx - 5, cy - 3, 80)
    shown = reading("red-reverse", Scene.quad(twin[1], twin[2], twin[3], w=34, h=52))
    assert played(_lay(s, twin, lambda: [shown])) == [["red-reverse"]]
    # Seen when the pile settled, the same card boxed smaller after a hand came by is that
    # card partly covered, as before.
    assert played(s.run(3, hand=(cx, cy), dets=[]) + s.run(10, dets=[shown])) == []
    smaller = reading("red-reverse", Scene.quad(twin[1], twin[2], twin[3], w=28, h=44))
    assert played(s.run(3, hand=(cx, cy), dets=[]) + s.run(10, dets=[smaller])) == []


def test_a_card_laid_over_one_read_unsurely_where_it_lay_is_reported():
    """The warm print's game of seed 3, play 134: a `blue-7` laid over most of a `blue-5`,
    read 0.99 in every clear frame; the `blue-5` re-read 0.32 where it lay, boxed around
    nearly all of the new card. Counted as a card laid beside it, the unsure old card hid the
    new one's changed pixels and the play was lost. An unsure reading of the card known at
    its place is that card, which the new one landed on: it was not laid."""
    s = Scene()
    cx, cy = s.centre("discard")
    old = ("blue-5", cx, cy, 0)
    assert played(_lay(s, old, lambda: s.detections(visible=[old]))) == [["blue-5"]]
    # A hand comes by and lays nothing; the pile settles with the blue 5 unread (a glare).
    assert played(s.run(3, hand=(cx, cy), dets=[]) + s.run(10, dets=[])) == []
    new = ("blue-7", cx + 3, cy + 4, 0)  # the same blue, a little aside: a third of it changed
    under = reading("blue-5", Scene.quad(cx, cy, 0, w=60, h=88), 0.32)  # around all of the new card
    assert played(_lay(s, new, lambda: s.detections(visible=[new]) + [under])) == [["blue-7"]]


def test_a_card_the_leaving_hand_hid_at_first_is_still_reported():
    """Seed 3 of the sim-truth demo: the hand withdrawing still hid most of the new card in
    three of the first five clear frames, so it had two hits when the window filled; the pile
    settled without it and the play was lost."""
    s = Scene()
    cx, cy = s.centre("discard")
    s.run(5)
    s.play(("red-1", cx, cy, 10))
    assert played(s.run(10)) == [["red-1"]]
    s.play(("red-9", cx + 25, cy + 18, 22))
    older = [c for c in s.cards if c[0] == "red-1"]
    obs = []
    for k in range(5):
        obs += s.step(dets=s.detections(visible=s.cards if k in (1, 4) else older))
    obs += s.run(10)
    assert played(obs) == [["red-9"]]
    assert played(s.run(20)) == []


def test_a_long_row_laid_card_by_card_is_revealed_whole_though_each_card_ends_up_hidden():
    """Issue 19: fourteen cards in one row of the reveal zone, each laid over the one before
    so that only a strip of every card but the last shows, too little to read. Each card
    is read while it is the top card; the hand is the cards laid, not the cards that show
    now. The same face twice side by side stays two cards; a sweep empties the zone."""
    s = Scene()
    x0, _, x1, _ = s.zones["reveal"].bounds()
    ry = s.centre("reveal")[1]
    faces = ["red-1", "red-1", "wild", "green-skip", "blue-7", "yellow-draw2", "red-reverse",
             "wild-draw4", "green-0", "blue-9", "yellow-3", "blue-9", "red-5", "green-8"]
    step = 14.0  # each card under the next shows 35% of its width (cards are 40 px wide)
    assert x0 + 25 + step * len(faces) < x1
    s.run(3)
    obs = []
    for i, face in enumerate(faces):
        card = (face, x0 + 25 + i * step, ry, float((-1) ** i))
        obs += s.run(3, hand=(card[1], ry), dets=[])  # the hand lays it and leaves
        s.cards.append(card)
        obs += s.run(2, dets=s.detections(visible=[card]))  # two clear frames: the top card
    obs += s.run(8, dets=s.detections(visible=[s.cards[-1]]))
    reveals = [sorted(c.card for c in o.cards) for o in obs if isinstance(o, CardsRevealed)]
    assert reveals and reveals[-1] == sorted(faces)
    last = [o for o in obs if isinstance(o, CardsRevealed)][-1]
    assert [c.card for c in last.cards] == faces  # left to right, as laid
    s.cards.clear()
    obs = s.run(8, dets=[])
    assert [sorted(c.card for c in o.cards) for o in obs if isinstance(o, CardsRevealed)] == [[]]


def _revealed(obs) -> list[list[str]]:
    return [sorted(c.card for c in o.cards) for o in obs if isinstance(o, CardsRevealed)]


def test_a_box_slipped_off_a_half_covered_revealed_card_is_that_card_not_a_second_one():
    """The shipped model boxes a card half under the next one a quarter of a card off its
    place (measured: intersection over union 0.63 with its whole box): still one card."""
    s = Scene()
    rx, ry = s.centre("reveal")
    a, b = ("green-draw2", rx, ry, 0.0), ("green-0", rx + 20, ry, 0.0)
    s.run(3)
    obs = s.run(3, hand=(rx, ry), dets=[])
    s.cards.append(a)
    obs += s.run(2, dets=s.detections(visible=[a]))
    obs += s.run(3, hand=(rx + 20, ry), dets=[])
    s.cards.append(b)
    slipped = reading("green-draw2", s.quad(rx - 10, ry, 0.0))  # off towards where nothing lies
    obs += s.run(8, dets=s.detections(visible=[b]) + [slipped])
    assert _revealed(obs)[-1] == ["green-0", "green-draw2"]


def test_a_card_boxed_small_on_the_top_card_is_a_new_card_a_one_frame_misread_is_not():
    """After a hand came by, another face read twice inside the top card (the model's box
    of a card just laid can be small) is a card laid on it; one frame of another face, with
    the top card's own face read again, is a misread."""
    s = Scene()
    rx, ry = s.centre("reveal")
    a = ("blue-2", rx, ry, 0.0)
    s.run(3)
    obs = s.run(3, hand=(rx, ry), dets=[])
    s.cards.append(a)
    obs += s.run(3, dets=s.detections(visible=[a]))
    obs += s.run(3, hand=(rx, ry), dets=[])
    small = reading("yellow-9", s.quad(rx + 2, ry, 0.0, w=32, h=50))
    s.cards.append(("yellow-9", rx + 2, ry, 0.0))
    obs += s.run(8, dets=[small])
    assert _revealed(obs)[-1] == ["blue-2", "yellow-9"]
    obs = s.run(3, hand=(rx, ry), dets=[])  # a hand over the zone lays nothing
    obs += s.step(dets=[reading("red-5", small.quad)])
    obs += s.run(8, dets=[small])
    assert not _revealed(obs)  # nothing changed


def test_the_next_hand_laid_right_after_a_sweep_starts_on_a_bare_zone():
    """Cards remembered under others must not outlive a sweep: the place of each changed, so
    two clear frames later they are gone, even when the next hand's first card comes at once
    and lies where the old ones lay."""
    s = Scene()
    rx, ry = s.centre("reveal")
    old = [("red-1", rx - 14, ry, 0.0), ("wild", rx, ry, 0.0), ("green-skip", rx + 14, ry, 0.0)]
    s.run(3)
    obs = []
    for card in old:
        obs += s.run(3, hand=(card[1], ry), dets=[])
        s.cards.append(card)
        obs += s.run(3, dets=s.detections(visible=[card]))
    obs += s.run(5, dets=s.detections(visible=[old[-1]]))
    assert _revealed(obs)[-1] == ["green-skip", "red-1", "wild"]
    obs = s.run(3, hand=(rx, ry), dets=[])  # swept
    s.cards.clear()
    obs += s.run(2, dets=[])
    new = ("blue-4", rx - 10, ry, 0.0)
    obs += s.run(3, hand=(rx - 10, ry), dets=[])
    s.cards.append(new)
    obs += s.run(6, dets=s.detections(visible=[new]))
    assert _revealed(obs)[-1] == ["blue-4"]


def test_a_face_read_on_the_bare_reveal_zone_beside_a_hand_is_no_card():
    """The mat's empty green beside a revealed row was boxed and read `green-1` at 0.5 (the
    bar a revealed card needs), and scored as a card in most revealed hands of rendered game
    seed 4. Where the box looks as the zone did bare, it is the zone, not a card."""
    s = Scene()
    rx, ry = s.centre("reveal")
    empty = reading("green-1", s.quad(rx + 70, ry, 0.0, w=50, h=50), conf=0.5)
    s.run(s.tracker.cfg.reveal_frames + 2, dets=[])  # the zone seen bare
    card = ("blue-4", rx - 20, ry, 0.0)
    obs = s.run(3, hand=(rx - 20, ry), dets=[])
    s.cards.append(card)
    obs += s.run(8, dets=s.detections(visible=[card], extra=[empty]))
    assert _revealed(obs) == [["blue-4"]]
    # the same box over a card laid there is read as that card
    s.cards.append(("green-1", rx + 70, ry, 0.0))
    obs = s.run(3, hand=(rx + 70, ry), dets=[])
    obs += s.run(8, dets=s.detections(visible=[card], extra=[empty]))
    assert _revealed(obs)[-1] == ["blue-4", "green-1"]


def test_a_face_read_on_the_reveal_zone_before_any_hand_came_is_no_card_laid():
    """Off the mat, a patterned cloth was read as `green-7` from the camera's first frame, so
    the zone was never seen bare, and it was reported as a revealed hand, then counted in the
    hand really laid (2 of 200 bare procedural tables). Nothing lies in the reveal zone that a
    hand did not lay: the zone as found is its bare look."""
    rx, ry = Scene().centre("reveal")

    def play(config=None):
        s = Scene(config)
        cloth = reading("green-7", s.quad(rx + 70, ry, 0.0, w=50, h=50), conf=0.6)
        obs = s.run(s.tracker.cfg.reveal_frames + 2, dets=[cloth])  # read from the first frame
        card = ("blue-4", rx - 20, ry, 0.0)
        obs += s.run(3, hand=(rx - 20, ry), dets=[])
        s.cards.append(card)
        return obs + s.run(8, dets=s.detections(visible=[card], extra=[cloth]))

    assert _revealed(play()) == [["blue-4"]]
    # a zone that needs no hand first (the rule off) takes the cloth for a card laid
    assert _revealed(play(TrackerConfig(require_activity=False)))[-1] == ["blue-4", "green-7"]


def test_a_face_read_on_the_pile_since_the_first_frame_whose_pixels_never_changed_is_no_play():
    """The same cloth under the discard zone: read `green-7` from the first frame and reported
    as a play the first time a hand passed over the pile without laying anything. The pile as
    the camera found it is settled; a card really played there is still reported."""
    s = Scene()
    cx, cy = s.centre("discard")
    cloth = reading("green-7", s.quad(cx + 60, cy, 0.0), conf=0.6)
    obs = s.run(8, dets=[cloth])
    obs += s.run(3, hand=(cx, cy), dets=[])  # a hand passes over the pile, lays nothing
    obs += s.run(10, dets=[cloth])
    assert played(obs) == []
    s.play(("red-7", cx - 20, cy, 10))
    assert played(s.run(10, dets=s.detections() + [cloth])) == [["red-7"]]


def test_on_the_mat_the_empty_discard_field_boxed_whole_is_no_play():
    """At a game's start a candidate classifier read the empty printed discard field, boxed
    whole, as `green-1` 0.51, and the table reported a play before anyone played."""
    s = Scene()
    s.tracker.set_zones(ZoneLayout(s.zones.zones, source="mat"))
    cx, cy = s.centre("discard")
    field = reading("green-1", [tuple(p) for p in s.zones["discard"].polygon], conf=0.51)
    assert played(s.run(12, dets=[field])) == []
    s.play(("red-7", cx, cy, 10))
    assert played(s.run(10, dets=s.detections() + [field])) == [["red-7"]]


def _frames_to_report(s: Scene, limit: int = 40) -> int | None:
    """Frames after the hand left until the play is reported (the detector reads every card)."""
    for k in range(1, limit + 1):
        if played(s.step()):
            return k
    return None


def test_a_card_printed_in_a_skin_colour_is_reported_once_read_surely():
    """The warm cheap print's game (seed 3, plays 37, 125, 178): its orange-yellow under a
    warm bulb is skin-coloured, so once the hand had gone the pile still looked covered
    until that still patch was taken as part of the table (`absorb_frames`, 12 frames), and
    the next hand came first: the play was lost. Read while still, the patch lies on a card
    read surely: it is the card, and the pile is clear at once."""
    s = Scene()
    cx, cy = s.centre("discard")
    s.run(5)
    s.paint["yellow-5"] = s.paint["yellow-6"] = SKIN
    s.play(("yellow-5", cx - 24, cy, 0), ("yellow-6", cx + 24, cy, 0))
    frames = _frames_to_report(s)
    assert frames is not None and frames < s.tracker.cfg.absorb_frames


def test_a_hand_resting_still_on_a_card_read_surely_stays_a_hand():
    s = Scene()
    cx, cy = s.centre("discard")
    s.run(5)
    s.play(("red-7", cx, cy, 10))
    s.run(10)
    # A hand comes back and rests on the pile; the detector still reads the card under it.
    for k in range(4):
        s.step(hand=(cx, H - (H - cy) * (k + 1) / 4), dets=s.detections(conf=0.95))
    for _ in range(s.tracker.cfg.absorb_frames - 2):
        s.step(hand=(cx, cy), dets=s.detections(conf=0.95))
        assert s.tracker.covered["discard"]


def test_a_thing_on_the_table_that_turns_skin_coloured_when_the_light_is_learnt_under_a_hand_is_no_fingertip():
    """The table at rest is what is no hand; when the white balance changes while a hand is
    in view (the light learnt from cards read meanwhile), the table at rest is seen under the
    new balance too: a card's orange turned skin-coloured by it is no second hand."""
    from vision.monitor import FrameFeatures, skin_mask

    gains = (1.25, 1.0, 0.75)
    patch = tuple(int(v) for v in np.clip(np.array(SKIN) / np.array(gains), 0, 255))  # skin only once balanced
    s = Scene()
    dx, dy = s.centre("draw")
    cx, cy = s.centre("discard")

    def frame(hand):  # the hand under the same light as the patch: skin once balanced
        img = s.image(hand)
        img[(np.abs(img.astype(int) - SKIN) <= 2).all(axis=2)] = patch
        cv2.circle(img, (int(dx), int(dy)), 40, patch, -1)
        return img

    at_rest = FrameFeatures.of(frame(None))
    assert not skin_mask(at_rest.small).any() and skin_mask(at_rest.small, gains).any()
    for n in range(1, 4):
        s.tracker.update(n, n / 20, None, [], features=FrameFeatures.of(frame(None)))
    for n, k in enumerate(range(1, 6), start=4):  # a hand from below to the discard pile, the light learnt anew
        f = FrameFeatures.of(frame((cx, H - (H - cy) * k / 5)), gains=np.array(gains))
        s.tracker.update(n, n / 20, None, [], features=f)
    tips = s.tracker._fingertips(f)
    scale = f.scale
    assert len(tips) == 1, tips
    assert math.dist(tips[0], (cx * scale, cy * scale)) < 50 * scale  # the hand's far end, not the patch


@pytest.mark.parametrize("size", [(1280, 720), (1279, 719), (1290, 726), (640, 480), (300, 200)])
def test_the_monitors_frame_is_the_area_average_at_a_quarter_within_a_grey_level(size):
    """The monitors' reduced frame is shrunk in halvings (fast in OpenCV) and must read as the
    one-step area average: same size, every pixel within one grey level."""
    from vision.monitor import SCALE, FrameFeatures

    w, h = size
    rng = np.random.default_rng(3)
    image = cv2.GaussianBlur(rng.integers(0, 256, (h, w, 3), dtype=np.uint8), (0, 0), 2)
    cv2.rectangle(image, (w // 5, h // 4), (w // 2, h // 2), (250, 250, 250), -1)  # a card's sharp edge
    want = cv2.resize(image, (int(w * SCALE), int(h * SCALE)), interpolation=cv2.INTER_AREA)
    got = FrameFeatures.of(image).small
    assert got.shape == want.shape
    assert int(np.abs(got.astype(int) - want.astype(int)).max()) <= 1
