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
4. `deck_classifier.onnx`: the generic classifier with the colour map in front and the new
   last layer (same input, output and cost); `profile.json`: the generic classifier's
   sha256, the colours, the settings and the figures (top-1 on the held-back augmentations,
   generic and adapted).

Everything runs offline on the CPU with ONNX Runtime, numpy and scipy.
"""

from __future__ import annotations

import json
import platform
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.crops import CLASSES
from vision.decks import augment, colour, onnxgraph, store
from vision.decks.learn import classifier_input, session, softmax, straighten
from vision.decks.store import DeckError
from vision.render import BACK


@dataclass
class FitSettings:
    per_card: int = 100  # training augmentations per enrolled card (half of them turned)
    held_back: int = 20  # augmentations per card kept back to measure the fit
    scenes: int = 6  # small table scenes per card, boxed by the table's own detector
    backs: int = 80  # rendered card backs: the head learns the back too
    shrink: float = 0.2  # covariance shrinkage of the discriminant
    colour: bool = True  # learn this light's colours
    seed: int = 0
    threads: int = 2

    @classmethod
    def fast(cls) -> FitSettings:
        """For tests: a few augmentations, a quick fit (lower accuracy)."""
        return cls(per_card=10, held_back=4, scenes=1, backs=10)


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
        z, f = sess.run(None, {name: classifier_input(crops[i:i + batch])})
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


def _renders(card: str, count: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Crops of rendered printings (any of the three looks) of a card, augmented; every
    second one turned."""
    from vision.render import render_card

    out = []
    for i in range(count):
        art = render_card(card, height=augment.SOURCE_H, rng=rng)
        h, w = art.shape[:2]
        canvas = np.full((int(h * 1.5), int(w * 1.5), 3), rng.integers(40, 160, 3), np.uint8)
        y0, x0 = (canvas.shape[0] - h) // 2, (canvas.shape[1] - w) // 2
        a = art[..., 3:4].astype(np.float32) / 255.0
        roi = canvas[y0:y0 + h, x0:x0 + w]
        roi[:] = (roi * (1 - a) + art[..., :3] * a).astype(np.uint8)
        quad = np.float32([[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]])
        out.append(augment.augment(canvas, quad, rng, turned=bool(i % 2)))
    return out


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

        recognizer = CardRecognizer.default(threads=s.threads)
    n_aug = len(cards) * (s.per_card + s.held_back) + s.backs
    n_scene = len(cards) * s.scenes
    bar = _Progress(total=n_aug + n_scene + n_aug + 2 * n_scene + 1, enabled=progress, callback=callback)
    turns = 2  # the deck's head has one row per face and turn of the card (two looks of one face)
    try:
        # 1. colours
        bar.stage("colours")
        names = [c.card for c in cards]
        shown = [straighten(photos[c.image], c.quad) for c in cards]
        measured = colour.measure(shown, names)
        matrix = colour.fit_map(measured) if s.colour else colour.IDENTITY.copy()
        # 2. augmentations: crops as the recognizer cuts them, and scenes its detector boxes
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
                train_y.append(turns * labels[-1] + k % 2)
            r_held = np.random.default_rng([s.seed, c.row, 7919])  # its own stream: never trained on
            for _ in range(s.held_back):
                held.append(augment.augment(src, quad, r_held))
                held_y.append(labels[-1])
            bar.update(s.per_card + s.held_back)
        if s.scenes > 0:
            bar.stage("scenes")
            crops, ys, turned = augment.scene_crops(arts, labels, recognizer, s.scenes, np.random.default_rng([s.seed, 1]),
                                                    progress=bar)
            train += crops
            train_y += [turns * y + int(t) for y, t in zip(ys, turned, strict=True)]
        n_deck = len(train)
        bar.stage("backs")
        train += _renders(BACK, s.backs, np.random.default_rng([s.seed, 2]))
        train_y += [turns * CLASSES.index(BACK) + i % 2 for i in range(s.backs)]
        bar.update(s.backs)
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
        gsess = session(generic, s.threads)
        z_generic = gsess.run(None, {gsess.get_inputs()[0].name: classifier_input(held)})[0] if held else None
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

    def logits(f):
        return (f @ layer.weight.T + layer.bias + head_scores(f @ head_w.T + head_b, enrolled, turns)) / temp

    def top1(z, y):
        return round(float((np.asarray(z).argmax(axis=1) == y).mean()), 4) if len(y) else None

    z_deck = logits(f_held)
    figures = {
        "held_back": {
            "augmentations": int(len(held_y_arr)),
            "generic_top1": top1(z_generic, held_y_arr) if z_generic is not None else None,
            "colours_only_top1": top1(z_held_mapped, held_y_arr),
            "deck_top1": top1(z_deck, held_y_arr),
            "deck_mean_confidence": round(float(softmax(z_deck)[np.arange(len(held_y_arr)), held_y_arr].mean()), 3)
            if len(held_y_arr) else None,
        },
        "train_top1": top1(logits(f_train[:n_deck]), train_y_arr[:n_deck] // turns),
        "training_crops": int(n_deck),
        "enrolled_cards": len(cards),
        "faces": len({c.card for c in cards}),
        "missing": missing,
    }
    out = folder / store.MODEL_FILE
    meta = {"deck": name, "deck_generic_sha256": generic_sha}
    onnxgraph.deck_model(generic, out, head_w, head_b, turns, temp, matrix if s.colour else None, meta, enrolled)
    # the written model must read the held-back augmentations as the fit did
    if held:
        check = session(out, s.threads)
        z_file = check.run(None, {check.get_inputs()[0].name: classifier_input(held)})[0]
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
        "head": {"alpha": alpha, "temperature": round(temp, 4), "lda_scale": round(scale, 4), "turns": turns},
        "figures": figures,
        "fit_seconds": round(seconds, 1),
        "fit_cpu_seconds": round(time.process_time() - cpu_start, 1),
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
    }
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


__all__ = ["FitSettings", "blend", "fit", "head_scores", "lda_head"]
