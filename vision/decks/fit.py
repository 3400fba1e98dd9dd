"""`deck fit`: adapt the recognizer to one deck, from its enrolled cards.

1. Colours: this camera's and this light's four card colours, paper and black, measured on
   the enrolled cards, and an affine colour map to the colours the generic classifier learnt
   (`vision.decks.colour`).
2. Augmentations: every enrolled card cut many times as a table camera will see it
   (`vision.decks.augment`), some kept back to measure the fit; small table scenes of the
   enrolled cards (piles, neighbours) boxed by the table's own detector, so its real box
   errors are learnt too; rendered card backs, so the head knows a back.
3. The deck's head: the generic classifier's penultimate features (behind the colour map)
   for every crop; a linear discriminant on them (one mean per face and turn of the card:
   a card upside down is another picture of the same face; a shared covariance shrunk
   toward a sphere; closed form, seconds on these cores), its two turns joined by a
   log-sum-exp, added to the generic last layer with a weight and a temperature picked on
   a fifth of the training crops. A face not enrolled (lost from the deck) gets the best
   enrolled class's head score: the head never speaks against it, the generic layer
   decides it.
4. The gate (`Gate`): the deck's reading is for this deck's cards under this light; any
   other card (its features nearer a printing the generic model knows than every enrolled
   card, or its white not the enrolment light's) is read by the generic model as is.
5. `deck_classifier.onnx`: the generic classifier with the colour map in front, the new
   last layer and the gate (same crops in, same logits out; a second input, each crop's
   white, which the recognizer gives; each crop read twice, mapped and as is, in one
   batch); `profile.json`: the generic classifier's sha256, the colours, the settings and
   the figures (top-1 on the held-back augmentations, generic and adapted).

Every crop is fed to the classifier as the recognizer feeds it (`learn.classifier_input`:
colour-normalised by its own white for the shipped classifier).

Everything runs offline on the CPU with ONNX Runtime, numpy and scipy.
"""

from __future__ import annotations

import json
import platform
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.crops import (
    CLASSES,
    crop_from_quad,
    crop_whites,
    normalize_colour,
    order_portrait,
    white_chroma,
)
from vision.decks import augment, colour, onnxgraph, store
from vision.decks.learn import (
    classifier_feed,
    classifier_input,
    session,
    softmax,
    straighten,
    white_ref,
)
from vision.decks.store import DeckError
from vision.render import BACK


@dataclass
class FitSettings:
    per_card: int = 100  # training augmentations per enrolled card (half of them turned)
    held_back: int = 20  # augmentations per card kept back to measure the fit
    scenes: int = 6  # small table scenes per card, boxed by the table's own detector
    held_scenes: int = 2  # table scenes per card kept back to measure the fit and its gate
    backs: int = 80  # rendered card backs: the head learns the back too
    shrink: float = 0.2  # covariance shrinkage of the discriminant
    colour: bool = True  # learn this light's colours
    gate: bool = True  # a card more like the generic model's printings than this deck's: read as is
    seed: int = 0
    threads: int = 2

    @classmethod
    def fast(cls) -> FitSettings:
        """For tests: a few augmentations, a quick fit (lower accuracy)."""
        return cls(per_card=10, held_back=4, scenes=1, held_scenes=1, backs=10)


class _Progress:
    """The tqdm bar on stderr, and/or a callback(stage, done, total) (the Setup page)."""

    def __init__(self, total: int, enabled: bool, callback=None):
        self.bar = None
        self.total, self.done, self.text, self.callback = total, 0, "", callback
        if enabled:
            import sys

            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="step", file=sys.stderr, dynamic_ncols=True)

    def stage(self, text: str) -> None:
        self.text = text
        if self.bar is not None:
            self.bar.set_description(text)
        if self.callback is not None:
            self.callback(text, self.done, self.total)

    def update(self, n: int = 1) -> None:
        self.done += n
        if self.bar is not None:
            self.bar.update(n)
        if self.callback is not None:
            self.callback(self.text, self.done, self.total)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _photos(folder: Path, cards: list[store.EnrolledCard]) -> dict[str, np.ndarray]:
    out = {}
    for c in cards:
        if c.image in out:
            continue
        path = folder / c.image
        img = cv2.imread(str(path), cv2.IMREAD_COLOR) if path.is_file() else None
        if img is None:
            raise DeckError(f"cards.csv row {c.row}: its photo {c.image} is missing or unreadable in {folder}")
        out[c.image] = img
    return out


def _features(sess, crops: list[np.ndarray], batch: int = 256, progress: _Progress | None = None):
    name = sess.get_inputs()[0].name
    feats, logits = [], []
    for i in range(0, len(crops), batch):
        z, f = sess.run(None, {name: classifier_input(crops[i:i + batch], sess)})
        logits.append(z)
        feats.append(f.reshape(len(f), -1))
        if progress is not None:
            progress.update(len(f))
    return np.concatenate(feats).astype(np.float32), np.concatenate(logits).astype(np.float32)


ABSENT = -1e4


def lda_head(feats: np.ndarray, labels: np.ndarray, classes: int, shrink: float):
    """A linear discriminant (shared covariance, shrunk toward a sphere) as a linear layer:
    logits_k = f . S^-1 mu_k - mu_k . S^-1 mu_k / 2. Classes without samples get -inf-like
    logits (they are left to the generic layer)."""
    d = feats.shape[1]
    mu = np.zeros((classes, d), np.float64)
    present = np.unique(labels)
    for c in present:
        mu[c] = feats[labels == c].mean(axis=0)
    r = (feats - mu[labels].astype(np.float32)).astype(np.float32)
    cov = (r.T @ r).astype(np.float64) / max(1, len(feats) - len(present))
    cov = (1 - shrink) * cov + shrink * np.trace(cov) / d * np.eye(d)
    w = np.linalg.solve(cov, mu.T).T
    b = -0.5 * (w * mu).sum(axis=1)
    absent = np.setdiff1d(np.arange(classes), present)
    w[absent] = 0.0
    b[absent] = ABSENT  # never chosen by the deck's head
    return w.astype(np.float32), b


def head_scores(z: np.ndarray, enrolled: np.ndarray, turns: int = 2) -> np.ndarray:
    """(N, classes * turns) head logits -> (N, classes): log-sum-exp over each class's
    turns; a class not enrolled gets the best enrolled class's score (as deck_model does)."""
    z = z.reshape(len(z), -1, turns)
    m = z.max(axis=2, keepdims=True)
    h = (m + np.log(np.exp(z - m).sum(axis=2, keepdims=True)))[..., 0]
    best = np.where(enrolled[None, :] > 0, h, -np.inf).max(axis=1, keepdims=True)
    return np.where(enrolled[None, :] > 0, h, best)


def _nll(z: np.ndarray, y: np.ndarray) -> float:
    z = z - z.max(axis=1, keepdims=True)
    return float(-(z[np.arange(len(y)), y] - np.log(np.exp(z).sum(axis=1))).mean())


def blend(zg: np.ndarray, zl: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(alpha, temperature) for logits (zg + alpha * zl) / T, picked on a validation split:
    the best top-1, then the lowest negative log-likelihood."""
    from scipy.optimize import minimize_scalar

    best = None
    for alpha in (0.0, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0, 10000.0):
        z = zg + alpha * zl
        res = minimize_scalar(lambda lt, z=z: _nll(z / np.exp(lt), y), bounds=(-4.0, 6.0), method="bounded")
        t = float(np.exp(res.x))
        key = (-(z.argmax(axis=1) == y).mean(), res.fun)
        if best is None or key < best[0]:
            best = (key, alpha, t)
    return best[1], best[2]


# log-chroma distance of a crop's white from the enrolment light's: about 30% between two
# channels. The crops of a busy pile measure their white less well than a card alone: the
# warm print's table scenes lie 0.115 from its light (median), 0.235 for one in twenty, and
# 0.2 sent one in eight of them to the generic model; the shared sets' photos, another light,
# lie 0.45 or more from it (models/README.md, deck enrolment, fourteenth session); a warm
# bulb's cast is 0.54 from daylight.
LIGHT_TOLERANCE = 0.3
# Each enrolled card's first training augmentations (cut as the table camera shows it: turned,
# warped, re-lit, partly covered) are prototypes of the gate beside the card itself: with the
# card alone, a pile's crop of it lay nearer one of the generic model's own (augmented)
# printings for one crop in ten, and the generic model read it.
GATE_SEEN = 20

@dataclass
class Gate:
    """Which crops the deck's reading is for. Both must hold:

    - the card: its generic features (from the crop's own colours) lie nearer an enrolled
      card's than any printing the generic model was made for (cosine to the nearest of
      each: no threshold, the two sets of prototypes decide);
    - the light: the crop's own white (`crops.crop_whites`) has the colour of the
      enrolment light's, within LIGHT_TOLERANCE (or twice the enrolled cards' own spread, if
      wider). The colour map is this light's; and one deck's teal is another's green. Under
      another light the deck falls back to the generic model, which balances each crop by
      its own white.

    A card of another deck or under another light is read by the generic model as is: the
    deck's colour map and head are this deck's, and they mislead on others (models/README.md,
    deck enrolment: the shared sets)."""

    prototypes: np.ndarray  # (enrolled cards x turns, features), unit rows
    references: np.ndarray  # (faces x looks x turns, features), unit rows: the generic renders
    light: np.ndarray | None = None  # (2,) the enrolment light's chroma
    tolerance: float = LIGHT_TOLERANCE

    @staticmethod
    def _unit(f: np.ndarray) -> np.ndarray:
        f = np.asarray(f, np.float32)
        return f / np.maximum(np.linalg.norm(f, axis=1, keepdims=True), 1e-12)

    @classmethod
    def of(cls, cards: np.ndarray, references: np.ndarray, whites: np.ndarray | None = None,
           seen: np.ndarray | None = None) -> Gate:
        """cards: the enrolled cards' generic features; whites: their crops' whites (the
        light; None: no light gate); seen: the features of the enrolled cards cut as the
        table will see them (augmentations), prototypes too."""
        protos = cards if seen is None or not len(seen) else np.vstack([cards, seen])
        gate = cls(cls._unit(protos), cls._unit(references))
        if whites is not None and len(whites):
            gate.light = np.median(white_chroma(whites), axis=0).astype(np.float32)
            gate.tolerance = max(LIGHT_TOLERANCE, 2 * float(gate.distance(whites).max()))
        return gate

    def distance(self, whites: np.ndarray) -> np.ndarray:
        return np.linalg.norm(white_chroma(whites) - self.light, axis=1)

    def inside(self, raw: np.ndarray, whites: np.ndarray | None = None) -> np.ndarray:
        u = self._unit(raw)
        card = (u @ self.prototypes.T).max(axis=1) >= (u @ self.references.T).max(axis=1)
        if self.light is None or whites is None:
            return card
        return card & (self.distance(whites) <= self.tolerance)

    def figures(self, **crops: tuple[np.ndarray, np.ndarray] | None) -> dict:
        """The share of each set of the deck's own crops ((features, whites)) that the gate
        keeps for the deck."""
        out = {"prototypes": len(self.prototypes), "references": len(self.references),
               "light": None if self.light is None else [round(float(v), 3) for v in self.light],
               "tolerance": round(self.tolerance, 3)}
        return out | {
            f"{k}_inside": round(float(self.inside(*v).mean()), 4) for k, v in crops.items() if v is not None and v[0] is not None and len(v[0])
        }


def _references(seed: int = 0) -> list[np.ndarray]:
    """Crops of every face in each look the generic classifier was made for, as a table camera
    shows them (each look's canonical printing and a random one, two mild augmentations
    each, one turned): the generic side of the gate. Mild: the references must look like
    photos, as the enrolled cards do (sterile renders let a real card of another deck pass
    for this deck's), without the strong light shifts that would claim a cast deck's cards."""
    from vision.render import ALL_FACES, LOOKS, render_card

    rng = np.random.default_rng([seed, 3])
    out = []
    for look in LOOKS:
        for face in ALL_FACES:
            for printing in (None, rng):
                art = render_card(face, look, height=augment.SOURCE_H, rng=printing)
                canvas, quad = _on_table(art, np.full(3, 110))
                out += [augment.augment(canvas, quad, rng, strength=0.5, turned=bool(k)) for k in (0, 1)]
    return out


def _on_table(art: np.ndarray, colour) -> tuple[np.ndarray, np.ndarray]:
    """A BGRA card drawn in the middle of a plain table half again its size: (image, quad)."""
    h, w = art.shape[:2]
    canvas = np.full((int(h * 1.5), int(w * 1.5), 3), colour, np.uint8)
    y0, x0 = (canvas.shape[0] - h) // 2, (canvas.shape[1] - w) // 2
    a = art[..., 3:4].astype(np.float32) / 255.0
    roi = canvas[y0:y0 + h, x0:x0 + w]
    roi[:] = (roi * (1 - a) + art[..., :3] * a).astype(np.uint8)
    return canvas, np.float32([[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]])


def _renders(card: str, count: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Crops of rendered printings (any of the three looks) of a card, augmented; every
    second one turned."""
    from vision.render import render_card

    out = []
    for i in range(count):
        art = render_card(card, height=augment.SOURCE_H, rng=rng)
        canvas, quad = _on_table(art, rng.integers(40, 160, 3))
        out.append(augment.augment(canvas, quad, rng, turned=bool(i % 2)))
    return out


@dataclass
class DeckCrops:
    """What a deck is fitted on: its enrolled cards cut as the table will see them."""

    train: list  # training crops: augmentations, then scene crops, then rendered backs
    train_y: list  # their classes, `TURNS` a face: face * TURNS + (1 if the card is turned)
    held: list  # augmentations kept back to measure the fit (their own random stream)
    held_y: list  # their faces
    labels: list  # each enrolled card's face (class index)
    n_deck: int  # train[:n_deck] are the deck's own cards (the rest: rendered backs)
    held_scenes: list = field(default_factory=list)  # scene crops kept back (scenes of their own)
    held_scenes_y: list = field(default_factory=list)  # their faces


TURNS = 2  # a deck's head has one row per face and turn of the card (two looks of one face)


def deck_crops(cards: list[store.EnrolledCard], photos: dict[str, np.ndarray], s: FitSettings,
               recognizer=None, bar: _Progress | None = None) -> DeckCrops:
    """Every enrolled card cut many times as the table camera will show it, small table
    scenes of them boxed by the table's own detector (its real box errors), and rendered
    backs: the crops `fit` (and `models deck-tune`) learn the deck from."""
    bar = bar or _Progress(0, False)
    bar.stage("augment")
    train, train_y, held, held_y = [], [], [], []
    arts, labels = [], []
    for c in cards:
        src, quad = augment.source(photos[c.image], c.quad)
        arts.append(augment.card_art(src, quad))
        labels.append(CLASSES.index(c.card))
        r = np.random.default_rng([s.seed, c.row])
        for k in range(s.per_card):
            train.append(augment.augment(src, quad, r, turned=bool(k % 2)))
            train_y.append(TURNS * labels[-1] + k % 2)
        r_held = np.random.default_rng([s.seed, c.row, 7919])  # its own stream: never trained on
        for _ in range(s.held_back):
            held.append(augment.augment(src, quad, r_held))
            held_y.append(labels[-1])
        bar.update(s.per_card + s.held_back)
    held_scenes, held_scenes_y = [], []
    if s.scenes > 0:
        bar.stage("scenes")
        crops, ys, turned = augment.scene_crops(arts, labels, recognizer, s.scenes, np.random.default_rng([s.seed, 1]),
                                                progress=bar)
        train += crops
        train_y += [TURNS * y + int(t) for y, t in zip(ys, turned, strict=True)]
        if s.held_scenes > 0:
            held_scenes, held_scenes_y, _ = augment.scene_crops(  # scenes of their own: never trained on
                arts, labels, recognizer, s.held_scenes, np.random.default_rng([s.seed, 11]), progress=bar)
    n_deck = len(train)
    bar.stage("backs")
    train += _renders(BACK, s.backs, np.random.default_rng([s.seed, 2]))
    train_y += [TURNS * CLASSES.index(BACK) + i % 2 for i in range(s.backs)]
    bar.update(s.backs)
    return DeckCrops(train, train_y, held, held_y, labels, n_deck, held_scenes, held_scenes_y)


def gate_augmentations(crops: DeckCrops, s: FitSettings) -> list:
    """The training augmentations the gate takes as prototypes: GATE_SEEN of each card's."""
    return [c for k, c in enumerate(crops.train[:len(crops.labels) * s.per_card]) if k % s.per_card < GATE_SEEN]


def deck_gate(rsess, cards: list[store.EnrolledCard], photos: dict[str, np.ndarray], s: FitSettings,
              seen: list | None = None) -> Gate:
    """The gate of a deck (`Gate`): its enrolled cards, both turns, and those of their
    augmentations given (`seen`, `gate_augmentations`), against the generic model's
    references, through `rsess` (a classifier with its features as an output: the generic one
    for the fit, the deck's tuned network for `models deck-tune`);
    the enrolment light from the cards' whites when the deck learns its colours."""
    enrolled_crops = [crop_from_quad(photos[c.image], order_portrait(c.quad)) for c in cards]
    r_cards, _ = _features(rsess, enrolled_crops + [c[::-1, ::-1] for c in enrolled_crops])
    r_seen = _features(rsess, seen)[0] if seen else None
    r_refs, _ = _features(rsess, _references(s.seed))
    return Gate.of(r_cards, r_refs, crop_whites(enrolled_crops) if s.colour else None, r_seen)


def fit(name: str, settings: FitSettings | None = None, *, allow_missing: bool | None = None,
        progress: bool = True, callback=None, recognizer=None) -> dict:
    """Fit deck NAME (see the module doc). Returns the profile written to profile.json.

    Refuses (DeckError, nothing written) a deck whose cards.csv names a face twice, names
    something that is not a face, or misses faces (unless learnt or fitted with
    allow_missing). callback(stage, done, total) follows the progress."""
    s = settings or FitSettings()
    t_start = time.perf_counter()
    cpu_start = time.process_time()
    folder = store.deck_dir(name)
    cards = store.read_cards(folder)
    if not cards:
        raise DeckError(f"deck {name!r}: cards.csv lists no cards")
    missing, doubled = store.face_problems(cards)
    learnt = store.read_json(folder / store.LEARN_FILE) or {}
    if allow_missing is None:
        allow_missing = bool(learnt.get("allow_missing"))
    if doubled or (missing and not allow_missing):
        raise DeckError(f"deck {name!r}: cards.csv " + store.describe_faces(missing, doubled)
                        + ": correct the `card` column (each face once), then fit again")
    generic = store.generic_classifier_path()
    generic_sha = store.sha256(generic)
    photos = _photos(folder, cards)
    if recognizer is None and s.scenes > 0:
        from vision.recognizer import CardRecognizer

        # the table scenes boxed as the table will box them: by the deck's own detector where it has one
        recognizer = CardRecognizer.default(detector_path=store.deck_detector(name), threads=s.threads)
    n_aug = len(cards) * (s.per_card + s.held_back) + s.backs
    n_scene = len(cards) * s.scenes
    n_held_scene = len(cards) * s.held_scenes if s.scenes else 0  # made as the scenes are; read unseen by the bar
    bar = _Progress(total=n_aug + n_scene + n_held_scene + n_aug + 2 * n_scene + len(cards) * s.held_back + 1,
                    enabled=progress, callback=callback)
    turns = TURNS
    try:
        # 1. colours
        bar.stage("colours")
        names = [c.card for c in cards]
        shown = [straighten(photos[c.image], c.quad) for c in cards]
        rsess = session(onnxgraph.feature_model(generic)[0], s.threads)  # the generic model, as is
        if white_ref(rsess):  # the colours the classifier will be fed
            shown = [normalize_colour(c) for c in shown]
        measured = colour.measure(shown, names)
        matrix = colour.fit_map(measured) if s.colour else colour.IDENTITY.copy()
        # 2. augmentations: crops as the recognizer cuts them, and scenes its detector boxes
        crops = deck_crops(cards, photos, s, recognizer, bar)
        train, train_y, held, held_y = crops.train, crops.train_y, crops.held, crops.held_y
        labels, n_deck = crops.labels, crops.n_deck
        train_y_arr, held_y_arr = np.array(train_y), np.array(held_y)
        enrolled = np.zeros(len(CLASSES), np.float32)  # the back counts as enrolled (its renders)
        enrolled[sorted(set(labels)) + ([CLASSES.index(BACK)] if s.backs else [])] = 1.0
        # 3. features, the deck's head and its blend with the generic layer
        bar.stage("features")
        feat_bytes, layer = onnxgraph.feature_model(generic, matrix)
        if layer.weight.shape[0] != len(CLASSES):
            raise DeckError(f"the classifier {generic} has {layer.weight.shape[0]} classes, decks need {len(CLASSES)}")
        fsess = session(feat_bytes, s.threads)
        f_train, _ = _features(fsess, train, progress=bar)
        f_held, z_held_mapped = _features(fsess, held, progress=bar)
        r_held, z_generic = _features(rsess, held, progress=bar) if held else (None, None)
        scenes, scenes_y = crops.held_scenes, np.array(crops.held_scenes_y, np.int64)
        f_scenes = _features(fsess, scenes)[0] if scenes else None
        r_scenes, z_scenes_generic = _features(rsess, scenes) if scenes else (None, None)
        w_held, w_scenes = (crop_whites(held) if held else None), (crop_whites(scenes) if scenes else None)
        gate = None
        if s.gate:
            gate = deck_gate(rsess, cards, photos, s, gate_augmentations(crops, s))
        bar.stage("fit")
        k = len(CLASSES)
        val = np.arange(len(train_y_arr)) % 5 == 4  # a fifth of the training crops picks the blend
        w_l, b_l = lda_head(f_train[~val], train_y_arr[~val], k * turns, s.shrink)
        zl_val = head_scores(f_train[val] @ w_l.T + b_l, enrolled, turns)
        real = zl_val[zl_val > ABSENT / 2]
        scale = float(real.std()) if real.size else 1.0
        zg_val = f_train[val] @ layer.weight.T + layer.bias
        alpha, temp = blend(zg_val, zl_val / scale, train_y_arr[val] // turns)
        w_l, b_l = lda_head(f_train, train_y_arr, k * turns, s.shrink)  # all of them, for the file
        head_w, head_b = (w_l * alpha / scale).astype(np.float32), (b_l * alpha / scale).astype(np.float32)
        bar.update(1)
    finally:
        bar.close()

    def logits(f, raw=None, whites=None):
        z = (f @ layer.weight.T + layer.bias + head_scores(f @ head_w.T + head_b, enrolled, turns)) / temp
        if gate is None or raw is None:
            return z
        return np.where(gate.inside(raw, whites)[:, None], z, raw @ layer.weight.T + layer.bias)

    def top1(z, y):
        return round(float((np.asarray(z).argmax(axis=1) == y).mean()), 4) if len(y) else None

    z_deck = logits(f_held, r_held, w_held if gate is not None else None)
    figures = {
        "held_back": {
            "augmentations": int(len(held_y_arr)),
            "generic_top1": top1(z_generic, held_y_arr) if z_generic is not None else None,
            "colours_only_top1": top1(z_held_mapped, held_y_arr),
            "deck_top1": top1(z_deck, held_y_arr),
            # the deck's own reading on all of them, the gate aside (it sends the harshest
            # re-lit augmentations to the generic model: their white is not the light's)
            "deck_ungated_top1": top1(logits(f_held), held_y_arr),
            "deck_mean_confidence": round(float(softmax(z_deck)[np.arange(len(held_y_arr)), held_y_arr].mean()), 3)
            if len(held_y_arr) else None,
        },
        # table scenes of their own, boxed by the table's detector: a busy pile's crops
        "held_back_scenes": {
            "crops": len(scenes),
            "generic_top1": top1(z_scenes_generic, scenes_y) if scenes else None,
            "deck_top1": top1(logits(f_scenes, r_scenes, w_scenes if gate is not None else None), scenes_y)
            if scenes else None,
        },
        "gate": gate.figures(held_back=(r_held, w_held), scenes=(r_scenes, w_scenes)) if gate is not None else None,
        "train_top1": top1(logits(f_train[:n_deck]), train_y_arr[:n_deck] // turns),
        "training_crops": int(n_deck),
        "enrolled_cards": len(cards),
        "faces": len({c.card for c in cards}),
        "missing": missing,
    }
    out = folder / store.MODEL_FILE
    meta = {"deck": name, "deck_generic_sha256": generic_sha}
    onnxgraph.deck_model(generic, out, head_w, head_b, turns, temp, matrix if s.colour else None, meta, enrolled,
                         gate=None if gate is None else gate)
    # the written model must read the held-back augmentations as the fit did
    if held:
        check = session(out, s.threads)
        z_file = check.run(None, classifier_feed(held, check))[0]
        if (np.asarray(z_file).argmax(axis=1) != z_deck.argmax(axis=1)).mean() > 0.01:
            out.unlink(missing_ok=True)
            raise DeckError("the written deck classifier does not reproduce the fit (an unsupported classifier graph?)")
    seconds = time.perf_counter() - t_start
    profile = {
        "format": store.PROFILE_FORMAT,
        "deck": name,
        "fitted": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "generic": {"sha256": generic_sha, "path": str(generic), "version": _model_version(generic)},
        "cards_sha256": store.sha256(folder / store.CARDS_FILE),
        "colours": {"measured_bgr": measured, "map_rgb": [[round(float(v), 5) for v in r] for r in matrix]},
        "settings": asdict(s) | {"allow_missing": bool(allow_missing)},
        "gate": None if gate is None else gate.figures(),
        "head": {"alpha": alpha, "temperature": round(temp, 4), "lda_scale": round(scale, 4), "turns": turns},
        "figures": figures,
        "fit_seconds": round(seconds, 1),
        "fit_cpu_seconds": round(time.process_time() - cpu_start, 1),
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
    }
    old = store.read_json(folder / store.PROFILE_FILE) or {}
    if old.get("detector") and (folder / store.DETECTOR_FILE).is_file():  # the deck's own detector stays
        profile["detector"] = old["detector"]
    store.write_json(folder / store.PROFILE_FILE, profile)
    return profile


def _model_version(path: Path) -> str:
    """What the classifier says of itself (its metadata), for messages."""
    try:
        import onnxruntime as ort

        meta = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).get_modelmeta()
        extra = {k: v for k, v in meta.custom_metadata_map.items() if k not in ("names", "crop", "input")}
        return json.dumps({"producer": meta.producer_name, "version": meta.version, **extra})[:300]
    except Exception:  # noqa: BLE001 - only for a message
        return "unknown"


__all__ = ["DeckCrops", "FitSettings", "Gate", "blend", "deck_crops", "deck_gate", "fit", "gate_augmentations", "head_scores", "lda_head"]
