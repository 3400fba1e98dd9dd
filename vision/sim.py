"""The simulated table: camera frames rendered from a sequence of table actions.

A virtual camera looks down (with a little perspective) on a table with the printed mat.
Actions move a hand (skin, a sleeve, a soft shadow) in from a player's side:
  play(cards)   carry card(s) to the discard pile, let go at a pose, withdraw;
  touch()       a hand covers the pile and leaves without playing (tidying);
  draw()        a hand reaches into the draw pile and leaves;
  reveal(cards) lay cards face up in the reveal zone, one by one;
  clear_reveal() sweep the reveal zone empty;
  idle(seconds) nothing happens.
Cards are drawn by vision.render, or cut from real photos (`faces`, vision.real_faces). Each frame carries `SimTruth`: what was drawn where, in
z-order, and the actions that completed on it (the moment a card comes to rest). The truth is
for tests and evaluation only; the vision pipeline reads the pixels."""

from __future__ import annotations

import functools
import math
import threading
from collections import deque
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.mat import MatLayout, render_mat

CARD_W_MM, CARD_H_MM = 56.0, 87.0
SKIN_TONES = [(170, 190, 235), (140, 170, 225), (110, 140, 200), (80, 110, 170), (55, 80, 125), (45, 62, 95)]
SLEEVES = [(40, 40, 40), (150, 60, 30), (40, 40, 150), (180, 180, 180), (60, 120, 60), (30, 90, 170)]


@dataclass(frozen=True)
class CardPose:
    """A card on the mat: centre (mm) and angle (degrees)."""

    card: str
    x: float
    y: float
    angle: float

    def corners_mm(self) -> np.ndarray:
        a = math.radians(self.angle)
        c, s = math.cos(a), math.sin(a)
        hw, hh = CARD_W_MM / 2, CARD_H_MM / 2
        pts = [(-hw, -hh), (hw, -hh), (hw, hh), (-hw, hh)]
        return np.array([(self.x + px * c - py * s, self.y + px * s + py * c) for px, py in pts], np.float32)


@dataclass(frozen=True)
class TruthEvent:
    """An action that completed on this frame. kind: rest (cards came to rest on the
    discard pile), touch, draw, reveal (cards now face up in the reveal zone), clear."""

    kind: str
    cards: tuple[str, ...] = ()
    action: int = 0
    poses: tuple[CardPose, ...] = ()


@dataclass
class SimTruth:
    cards: list[tuple[str, np.ndarray]]  # (card, quad in frame px), bottom to top
    occluders: list[np.ndarray]  # hand and arm polygons in frame px, above all cards
    events: list[TruthEvent] = field(default_factory=list)
    zone_of_card: list[str] = field(default_factory=list)


@dataclass
class _Hand:
    target: tuple[float, float]  # mm
    entry: tuple[float, float]  # mm, off the mat
    skin: tuple[int, int, int]
    sleeve: tuple[int, int, int]


def _locked(method):
    """The app queues actions from its thread while the capture thread renders frames."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)

    return wrapper


class SimTable:
    def __init__(
        self, seed: int = 0, width: int = 1280, height: int = 720, fps: float = 20.0,
        mat: bool = True, look: str | None = None,
        faces: dict[str, list[np.ndarray]] | None = None,
    ):
        self._lock = threading.RLock()
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        self.width, self.height, self.fps = width, height, fps
        self.layout = MatLayout.for_paper("A3")
        from vision.render import LOOKS

        self.look = look or LOOKS[int(self.rng.integers(len(LOOKS)))]
        self._card_cache: dict[str, np.ndarray] = {}
        # real card photos by card id (vision.real_faces.load_faces): a face found there is
        # drawn from one of its photos, any other (and the backs) rendered
        self.faces = faces
        self._camera()
        self._background(mat)
        self.discard: list[CardPose] = []
        self.revealed: list[CardPose] = []
        self.draw_pile = [
            CardPose("back", *self._zone_centre("draw"), float(self.rng.normal(0, 3))) for _ in range(3)
        ]
        self._frames: deque = deque()  # pending (hand state, held cards, events) per frame
        self._action = 0
        self._static: np.ndarray | None = None
        self._noise: list[np.ndarray] | None = None
        self.frame_index = 0

    # ------------------------------------------------------------------ geometry
    def _camera(self) -> None:
        lay, rng = self.layout, self.rng
        # The mat fills most of the frame height, seen a little from the players' side.
        h_px = self.height * rng.uniform(0.84, 0.9)
        w_px = h_px * lay.width_mm / lay.height_mm
        cx, cy = self.width / 2 + rng.uniform(-30, 30), self.height / 2 + rng.uniform(-10, 10)
        tilt = rng.uniform(0.0, 0.06) * w_px
        j = lambda: rng.uniform(-12, 12)  # noqa: E731
        dst = np.array([
            [cx - w_px / 2 + tilt + j(), cy - h_px / 2 + j()],
            [cx + w_px / 2 - tilt + j(), cy - h_px / 2 + j()],
            [cx + w_px / 2 + j(), cy + h_px / 2 + j()],
            [cx - w_px / 2 + j(), cy + h_px / 2 + j()],
        ], np.float32)
        src = np.array([[0, 0], [lay.width_mm, 0], [lay.width_mm, lay.height_mm], [0, lay.height_mm]], np.float32)
        self.to_frame = cv2.getPerspectiveTransform(src, dst)
        self.px_per_mm = h_px / lay.height_mm

    def mm_to_px(self, pts) -> np.ndarray:
        pts = np.asarray(pts, np.float32).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.to_frame).reshape(-1, 2)

    def _zone_centre(self, name: str) -> tuple[float, float]:
        p = self.layout.zone_polygons()[name]
        return float(p[:, 0].mean()), float(p[:, 1].mean())

    def zone_polygons_px(self) -> dict[str, list[tuple[float, float]]]:
        """The zones in frame pixels (for a config without the mat)."""
        return {n: [tuple(map(float, p)) for p in self.mm_to_px(poly)] for n, poly in self.layout.zone_polygons().items()}

    def _background(self, mat: bool) -> None:
        rng = self.rng
        h, w = self.height, self.width
        # A wood-ish or cloth table: low-frequency noise over a base colour.
        base = np.array(
            [(60, 95, 140), (40, 70, 40), (90, 90, 95), (50, 60, 110), (120, 110, 100)][int(rng.integers(5))], np.float32
        )
        noise = cv2.resize(rng.normal(0, 1, (h // 16, w // 16)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
        grain = cv2.resize(rng.normal(0, 1, (h // 2, w // 64 + 1)).astype(np.float32), (w, h))
        table = base[None, None, :] * (1 + 0.08 * noise[..., None] + 0.05 * grain[..., None])
        img = np.clip(table, 0, 255).astype(np.uint8)
        if mat:
            ppm = max(2.0, self.px_per_mm * 1.5)
            mat_img = render_mat("A3", ppm)
            scale = np.diag([1 / ppm, 1 / ppm, 1.0])
            H = self.to_frame @ scale
            warped = cv2.warpPerspective(mat_img, H, (w, h), flags=cv2.INTER_AREA)
            mask = cv2.warpPerspective(np.full(mat_img.shape[:2], 255, np.uint8), H, (w, h))
            img = np.where(mask[..., None] > 127, warped, img)
        # Uneven light: brighter towards one corner.
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        gx, gy = rng.uniform(-1, 1, 2)
        light = 1.0 + 0.12 * ((xx / w - 0.5) * gx + (yy / h - 0.5) * gy)
        self.background = np.clip(img * light[..., None], 0, 255).astype(np.uint8)

    # ------------------------------------------------------------------ drawing
    def _card_image(self, card: str) -> np.ndarray:
        if card not in self._card_cache:
            from vision.render import render_card

            h = int(round(CARD_H_MM * self.px_per_mm * 1.25))
            if self.faces and self.faces.get(card):
                photos = self.faces[card]
                photo = photos[int(self.rng.integers(len(photos)))]
                w = int(round(h * CARD_W_MM / CARD_H_MM))
                self._card_cache[card] = cv2.resize(photo, (w, h), interpolation=cv2.INTER_AREA)
                return self._card_cache[card]
            seed = int(self.rng.integers(1 << 30))
            self._card_cache[card] = render_card(card, look=self.look, height=h, seed=seed)
        return self._card_cache[card]

    def _paste_card(self, img: np.ndarray, pose: CardPose) -> np.ndarray:
        quad = self.mm_to_px(pose.corners_mm())
        card = self._card_image(pose.card)
        ch, cw = card.shape[:2]
        x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 1
        x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 1
        x0, y0 = max(0, x0), max(0, y0)
        x1, y1 = min(img.shape[1], x1), min(img.shape[0], y1)
        if x1 <= x0 or y1 <= y0:
            return quad
        src = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float32)
        M = cv2.getPerspectiveTransform(src, quad - np.array([x0, y0], np.float32))
        patch = cv2.warpPerspective(card, M, (x1 - x0, y1 - y0), flags=cv2.INTER_AREA)
        alpha = patch[:, :, 3:4].astype(np.float32) / 255.0
        roi = img[y0:y1, x0:x1]
        # A faint shadow under the card edge makes the stack look like a stack.
        roi[:] = (roi * (1 - alpha) + patch[:, :, :3] * alpha).astype(np.uint8)
        return quad

    def _draw_hand(self, img: np.ndarray, hand: _Hand, t: float) -> list[np.ndarray]:
        """The hand at fraction t of the way from entry (0) to target (1)."""
        ex, ey = hand.entry
        tx, ty = hand.target
        px, py = ex + (tx - ex) * t, ey + (ty - ey) * t
        ang = math.atan2(ty - ey, tx - ex)
        ux, uy = math.cos(ang), math.sin(ang)
        vx, vy = -uy, ux
        # In mm: a palm ellipse behind the point, fingers reaching over it.
        palm_c = (px - ux * 35, py - uy * 35)
        palm = [(palm_c[0] + ux * 45 * math.cos(a) + vx * 38 * math.sin(a),
                 palm_c[1] + uy * 45 * math.cos(a) + vy * 38 * math.sin(a)) for a in np.linspace(0, 2 * math.pi, 24)]
        fingers = []
        for k, off in enumerate((-24, -8, 8, 24)):
            ln = (55, 65, 62, 50)[k]
            bx, by = palm_c[0] + vx * off + ux * 25, palm_c[1] + vy * off + uy * 25
            fingers.append(((bx, by), (bx + ux * ln, by + uy * ln)))
        thumb = ((palm_c[0] + vx * 35, palm_c[1] + vy * 35), (palm_c[0] + vx * 60 + ux * 25, palm_c[1] + vy * 60 + uy * 25))
        far = (palm_c[0] - ux * 800, palm_c[1] - uy * 800)
        k = self.px_per_mm
        h, w = img.shape[:2]
        pts = {
            "palm": self.mm_to_px(palm),
            "fingers": [self.mm_to_px([a, b]) for a, b in (*fingers, thumb)],
            "arm": self.mm_to_px([(palm_c[0] - ux * 40, palm_c[1] - uy * 40), far]),
            "wrist": self.mm_to_px([palm_c, (palm_c[0] - ux * 60, palm_c[1] - uy * 60)]),
        }
        # Work in the part of the frame the hand can touch (the arm is clipped to the frame).
        allp = np.concatenate([pts["palm"], *pts["fingers"], pts["wrist"]])
        pad = int(50 * k)
        x0, y0 = np.floor(allp.min(axis=0)).astype(int) - pad
        x1, y1 = np.ceil(allp.max(axis=0)).astype(int) + pad
        arm_dir = pts["arm"][1] - pts["arm"][0]
        # Extend the ROI towards the frame edge the arm comes from.
        if arm_dir[0] < 0:
            x0 = 0
        else:
            x1 = w
        if arm_dir[1] < 0:
            y0 = 0
        else:
            y1 = h
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        if x1 <= x0 or y1 <= y0:
            return []
        off = np.array([x0, y0], np.float32)
        rw, rh = x1 - x0, y1 - y0
        skin = np.zeros((rh, rw), np.uint8)
        arm = np.zeros((rh, rw), np.uint8)
        P = lambda q: tuple(np.round(q - off).astype(int))  # noqa: E731
        cv2.fillPoly(skin, [np.round(pts["palm"] - off).astype(np.int32)], 255, cv2.LINE_AA)
        for a, b in pts["fingers"]:
            cv2.line(skin, P(a), P(b), 255, max(2, int(17 * k)), cv2.LINE_AA)
        far_px = np.clip(pts["arm"][1], -4 * w, 4 * w)
        cv2.line(arm, P(pts["arm"][0]), P(far_px), 255, max(2, int(75 * k)), cv2.LINE_AA)
        cv2.line(skin, P(pts["wrist"][0]), P(pts["wrist"][1]), 255, max(2, int(60 * k)), cv2.LINE_AA)
        arm = cv2.bitwise_and(arm, cv2.bitwise_not(cv2.dilate(skin, None)))
        both = cv2.bitwise_or(skin, arm)
        roi = img[y0:y1, x0:x1].astype(np.float32)
        # Soft shadow offset away from the light, then arm and skin.
        small = cv2.resize(both, (max(1, rw // 4), max(1, rh // 4)), interpolation=cv2.INTER_AREA)
        small = np.roll(small, (int(2 * k), int(1.5 * k)), axis=(0, 1))
        shadow = cv2.resize(cv2.GaussianBlur(small, (0, 0), 1.5 * k), (rw, rh))
        roi *= 1 - 0.35 * shadow[..., None] / 255.0
        for mask, colour in ((arm, hand.sleeve), (skin, hand.skin)):
            a = cv2.GaussianBlur(mask, (5, 5), 0).astype(np.float32)[..., None] / 255.0
            roi[:] = roi * (1 - a) + np.array(colour, np.float32) * a
        img[y0:y1, x0:x1] = roi.astype(np.uint8)
        cnts = []
        for mask in (skin, arm):
            cs, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            cnts += [c.reshape(-1, 2).astype(np.float32) + off for c in cs if len(c) >= 3]
        return cnts

    def _rebuild_static(self) -> None:
        img = self.background.copy()
        for pose in (*self.draw_pile, *self.discard, *self.revealed):
            self._paste_card(img, pose)
        self._static = img

    # ------------------------------------------------------------------ actions
    def _new_hand(self, target_mm) -> _Hand:
        lay, rng = self.layout, self.rng
        side = int(rng.integers(4))
        tx, ty = target_mm
        if side == 0:
            entry = (tx + rng.uniform(-120, 120), lay.height_mm + 260)
        elif side == 1:
            entry = (tx + rng.uniform(-120, 120), -260)
        elif side == 2:
            entry = (-300, ty + rng.uniform(-80, 80))
        else:
            entry = (lay.width_mm + 300, ty + rng.uniform(-80, 80))
        return _Hand(target_mm, entry, SKIN_TONES[int(rng.integers(len(SKIN_TONES)))],
                     SLEEVES[int(rng.integers(len(SLEEVES)))])

    def _n(self, seconds: float) -> int:
        return max(1, int(round(seconds * self.fps)))

    def _reach(self, hand: _Hand, held: list[CardPose], on_arrive, events_at_arrival, stay: float):
        """Queue frames: hand in (carrying `held`), `on_arrive` at the target, hand out."""
        rng = self.rng
        n_in, n_stay, n_out = self._n(rng.uniform(0.35, 0.6)), self._n(stay), self._n(rng.uniform(0.25, 0.45))
        ex, ey = hand.entry
        for i in range(1, n_in + 1):
            t = i / n_in
            t = 1 - (1 - t) ** 2  # slow down on arrival
            off = (1 - t)
            moving = [CardPose(c.card, c.x + (ex - c.x) * off, c.y + (ey - c.y) * off, c.angle + 40 * off) for c in held]
            self._frames.append((hand, t, moving, None, []))
        self._frames.append((hand, 1.0, [], on_arrive, events_at_arrival))
        for _ in range(n_stay - 1):
            self._frames.append((hand, 1.0, [], None, []))
        for i in range(1, n_out + 1):
            t = 1 - (i / n_out) ** 1.5
            self._frames.append((hand, t, [], None, []))

    @_locked
    def idle(self, seconds: float) -> None:
        for _ in range(self._n(seconds)):
            self._frames.append((None, 0, [], None, []))

    def _pile_pose(self, card: str, near: CardPose | None = None) -> CardPose:
        rng = self.rng
        poly = self.layout.zone_polygons()["discard"]
        (x0, y0), (x1, y1) = poly.min(axis=0), poly.max(axis=0)
        if near is not None:
            # Same place, nudged: at least a few mm or degrees, as a real hand does.
            dx, dy = rng.uniform(-10, 10, 2)
            da = rng.choice([-1, 1]) * rng.uniform(4, 15)
            x, y, a = near.x + dx, near.y + dy, near.angle + da
        else:
            cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
            x, y = cx + rng.normal(0, 14), cy + rng.normal(0, 12)
            a = float(rng.uniform(0, 180))
        # Keep the whole card on the printed zone (players aim for it; the reveal zone is near).
        m = math.hypot(CARD_W_MM, CARD_H_MM) / 2
        return CardPose(card, float(np.clip(x, x0 + m, x1 - m)), float(np.clip(y, y0 + m, y1 - m)), float(a))

    @_locked
    def play(self, cards: list[str] | tuple[str, ...], same_place: bool = False) -> None:
        """Lay `cards` (a multi-play when several) on the discard pile."""
        self._action += 1
        first = self._pile_pose(cards[0], self.discard[-1] if (same_place and self.discard) else None)
        poses = [first]
        a = math.radians(first.angle)
        back = 20.0 * (len(cards) - 1)  # the fan is centred where the hand aims
        first = poses[0] = CardPose(first.card, first.x - back * math.cos(a), first.y - back * math.sin(a), first.angle)
        for i in range(1, len(cards)):
            # A multi-play is fanned so each card shows (the referee must see them all).
            d = 40.0 * i
            poses.append(CardPose(cards[i], first.x + d * math.cos(a), first.y + d * math.sin(a),
                                  first.angle + float(self.rng.uniform(-6, 6))))
        target = (sum(p.x for p in poses) / len(poses), sum(p.y for p in poses) / len(poses))
        hand = self._new_hand(target)

        def arrive(poses=poses):
            self.discard.extend(poses)
            del self.discard[:-40]

        self._reach(hand, poses, arrive, [TruthEvent("rest", tuple(cards), self._action, tuple(poses))],
                    stay=self.rng.uniform(0.05, 0.25))

    @_locked
    def touch(self) -> None:
        """A hand covers the pile and leaves; nothing is played."""
        self._action += 1
        top = self.discard[-1] if self.discard else None
        target = (top.x, top.y) if top else self._zone_centre("discard")
        self._reach(self._new_hand(target), [], None, [TruthEvent("touch", (), self._action)],
                    stay=self.rng.uniform(0.2, 0.6))

    @_locked
    def draw(self) -> None:
        self._action += 1
        self._reach(self._new_hand(self._zone_centre("draw")), [], None,
                    [TruthEvent("draw", (), self._action)], stay=self.rng.uniform(0.1, 0.3))

    @_locked
    def reveal(self, cards: list[str] | tuple[str, ...]) -> None:
        """Lay `cards` face up in a row in the reveal zone, one by one."""
        poly = self.layout.zone_polygons()["reveal"]
        (x0, y0), (x1, y1) = poly.min(axis=0), poly.max(axis=0)
        n = len(cards)
        step = min(62.0, (x1 - x0 - CARD_W_MM) / max(1, n - 1))
        start = (x0 + x1) / 2 - step * (n - 1) / 2
        for i, card in enumerate(cards):
            self._action += 1
            pose = CardPose(card, start + i * step + float(self.rng.normal(0, 2)),
                            (y0 + y1) / 2 + float(self.rng.normal(0, 3)), float(self.rng.normal(0, 4)))
            already = tuple(c.card for c in self.revealed) if i == 0 else None

            def arrive(pose=pose):
                self.revealed.append(pose)

            shown = tuple(cards[: i + 1]) if already is None else already + (card,)
            self._reach(self._new_hand((pose.x, pose.y)), [pose], arrive,
                        [TruthEvent("reveal", shown, self._action)], stay=0.1)

    @_locked
    def clear_reveal(self) -> None:
        self._action += 1
        poly = self.layout.zone_polygons()["reveal"]
        c = (float(poly[:, 0].mean()), float(poly[:, 1].mean()))

        def arrive():
            self.revealed.clear()

        self._reach(self._new_hand(c), [], arrive, [TruthEvent("clear", (), self._action)], stay=0.2)

    @property
    def pending(self) -> int:
        return len(self._frames)

    # ------------------------------------------------------------------ frames
    @_locked
    def next_frame(self) -> tuple[np.ndarray, SimTruth]:
        """Render the next frame (an idle one when no action is queued)."""
        if self._static is None:
            self._rebuild_static()
        hand, t, moving, on_arrive, events = self._frames.popleft() if self._frames else (None, 0, [], None, [])
        if on_arrive is not None:
            on_arrive()
            self._rebuild_static()
        img = self._static.copy()
        cards = [(p.card, self.mm_to_px(p.corners_mm())) for p in (*self.draw_pile, *self.discard, *self.revealed)]
        for pose in moving:
            cards.append((pose.card, self._paste_card(img, pose)))
        occluders = self._draw_hand(img, hand, t) if hand is not None else []
        # Sensor noise, so that still frames are not bit-identical.
        if self._noise is None:
            self._noise = [
                self.rng.integers(0, 7, img.shape, dtype=np.uint8) for _ in range(4)
            ]
        # Add noise in [-3, 3] without leaving uint8 (saturating add, then subtract).
        img = cv2.subtract(cv2.add(img, self._noise[self.frame_index % 4]), np.full_like(img, 3))
        self.frame_index += 1
        return img, SimTruth(cards, occluders, list(events))


# ---------------------------------------------------------------------- scripts
def random_script(table: SimTable, plays: int, seed: int = 0) -> None:
    """Queue a random game of at least `plays` discard plays, with touches of the pile,
    draws, multi-plays, the same face laid on the same face, and reveals."""
    from vision.render import ALL_FACES

    rng = np.random.default_rng(seed + 7919)
    table.idle(0.5)
    done = 0
    while done < plays:
        r = rng.random()
        if r < 0.1 and table.discard:
            table.touch()
        elif r < 0.22:
            table.draw()
        elif r < 0.26:
            table.reveal([ALL_FACES[int(i)] for i in rng.integers(len(ALL_FACES), size=int(rng.integers(1, 5)))])
            table.idle(rng.uniform(0.5, 1.0))
            table.clear_reveal()
        else:
            if rng.random() < 0.1 and table.discard:
                table.play([table.discard[-1].card], same_place=True)
            elif rng.random() < 0.1:
                face = ALL_FACES[int(rng.integers(40))]  # a number: several of one rank
                rank = face.split("-")[1]
                colours = rng.permutation(["red", "yellow", "green", "blue"])[: int(rng.integers(2, 4))]
                table.play([f"{c}-{rank}" for c in colours])
            else:
                table.play([ALL_FACES[int(rng.integers(len(ALL_FACES)))]])
            done += 1
        table.idle(rng.uniform(0.3, 0.9))
