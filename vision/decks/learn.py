"""`deck learn`: find every card of a deck laid out face up, and name each without help.

The host lays one card of each of the 54 faces face up and apart, in one to six photos.
Each photo is checked (too dark, blurred, nothing found), every card is found (the detector,
on tiles of the photo when the cards are small in it), straightened, and read by the
generic classifier. With exactly one card of each face, naming is an assignment problem:
each card to one face, each face to at most one card, maximising the joint log-probability
(`scipy.optimize.linear_sum_assignment`). A card the classifier alone misreads (a lime
green read as yellow) gets its face back when the face it was read as belongs better to
another card. A card's confidence is how much the best naming beats the best naming that
gives it another face (a log-likelihood ratio turned into a probability).
"""

from __future__ import annotations

import math
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.crops import (
    CLASSES,
    COLOUR_WHITE_REF,
    WHITE_INPUT,
    classifier_batch,
    crop_from_quad,
    order_portrait,
    to_input,
)
from vision.decks import store
from vision.decks.store import DeckError, EnrolledCard
from vision.recognizer import refine_quad
from vision.render import ALL_FACES, BACK

# A photo darker than this (mean grey of 255) is refused; a photo whose cards are softer
# than this (median variance of the Laplacian of the straightened 96x64 crops, grey) too.
# Measured: sharp renders 1,900; the soft real photos of real-cards-2010s-mit2 650-910,
# the other two shared sets 1,200-3,700; a render blurred by 3 px 270, by 5 px 80.
MIN_BRIGHTNESS = 45.0
MIN_SHARPNESS = 200.0
BACK_PROB = 0.5  # a card the classifier calls a back with this probability is a back
DISPLAY_H, DISPLAY_W = 192, 128  # the crops written for the host


class DeckLearnError(DeckError):
    """`deck learn` found something wrong in the photos; nothing was written."""

    def __init__(self, message: str, report: LearnReport | None = None):
        super().__init__(message)
        self.report = report


@dataclass
class FoundCard:
    image: int  # index into the photos
    quad: np.ndarray  # 4x2, portrait-ordered, photo pixels
    score: float  # detector score
    probs: np.ndarray  # (55,) generic classifier, both turns averaged
    sharpness: float
    name: str | None = None  # the face the assignment gave it
    confidence: float = 0.0

    @property
    def read_as(self) -> str:
        return CLASSES[int(self.probs.argmax())]

    def where(self, photos: list[str]) -> str:
        x, y = self.quad.mean(axis=0)
        return f"{photos[self.image]} at ({x:.0f}, {y:.0f})"


@dataclass
class LearnReport:
    photos: list[str]
    cards: list[FoundCard] = field(default_factory=list)
    backs: list[FoundCard] = field(default_factory=list)
    leftovers: list[FoundCard] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    photo_problems: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def faces(self) -> int:
        return len({c.name for c in self.cards if c.name})

    @property
    def classifier_right(self) -> int | None:
        """Cards whose generic top-1 equals the assigned name (a lower bound on how many
        the classifier alone gets right when the names are right)."""
        return sum(c.read_as == c.name for c in self.cards)

    def problems(self, allow_missing: bool = False) -> list[str]:
        out = list(self.photo_problems)
        for b in self.backs:
            out.append(f"a card lies face down (read as the back, {b.probs[CLASSES.index(BACK)]:.2f}) in "
                       f"{b.where(self.photos)}: turn it face up, or take it away")
        for c in self.leftovers:
            twin = next((k for k in self.cards if k.name == c.read_as), None)
            also = f", like the card in {twin.where(self.photos)}" if twin is not None else ""
            out.append(f"one card too many: the card in {c.where(self.photos)} reads as {c.read_as}{also}: "
                       f"is {c.read_as} laid twice? Lay one card of each face")
        if self.missing and not allow_missing:
            out.append(f"{len(self.missing)} of 54 faces not found: {_some(self.missing)} "
                       "(lay them out and take another photo, or pass --allow-missing)")
        return out

    def lines(self, least: int = 5) -> list[str]:
        n = len(self.cards) + len(self.backs) + len(self.leftovers)
        out = [f"found {n} cards in {len(self.photos)} photo(s): {self.faces} of 54 faces named"]
        if self.missing:
            out.append(f"missing: {_some(self.missing)}")
        if self.cards:
            out.append(f"the classifier alone read {self.classifier_right} of {len(self.cards)} as named; "
                       "the others were named by the assignment")
            unsure = sorted(self.cards, key=lambda c: c.confidence)[:least]
            out.append("least sure: " + ", ".join(
                f"{c.name} ({c.confidence:.2f}, read as {c.read_as} {c.probs.max():.2f})" for c in unsure))
        return out

    def to_json(self) -> dict:
        return {
            "photos": self.photos,
            "cards": len(self.cards),
            "faces": self.faces,
            "missing": self.missing,
            "backs": len(self.backs),
            "leftovers": [c.read_as for c in self.leftovers],
            "classifier_alone_agrees": self.classifier_right,
            "least_sure": [
                {"card": c.name, "confidence": round(c.confidence, 3), "read_as": c.read_as}
                for c in sorted(self.cards, key=lambda c: c.confidence)[:8]
            ],
            "photo_problems": self.photo_problems,
            "seconds": round(self.seconds, 2),
        }


# ------------------------------------------------------------------------ classifier
def white_ref(sess) -> bool:
    """Does this classifier (an ONNX Runtime session) read crops colour-normalised by their own
    white (its metadata `colour`: COLOUR_WHITE_REF), as `CardRecognizer` then feeds it?"""
    return sess.get_modelmeta().custom_metadata_map.get("colour") == COLOUR_WHITE_REF


def classifier_input(crops: list[np.ndarray], sess) -> np.ndarray:
    """The input of classifier `sess` from straightened BGR crops, made as
    `CardRecognizer.classify` makes it for that classifier (one place to follow if the
    recognizer's preprocessing changes): a deck fitted on crops other than those the table
    feeds its classifier learns another picture of its cards."""
    return to_input(crops, normalize=white_ref(sess))


def classifier_feed(crops: list[np.ndarray], sess) -> dict[str, np.ndarray]:
    """`sess.run`'s inputs for these crops: the crops as `classifier_input` makes them, and
    their whites when the classifier takes them (a deck's, `crops.WHITE_INPUT`)."""
    names = [i.name for i in sess.get_inputs()]
    takes_white = WHITE_INPUT in names[1:]
    x, whites = classifier_batch(crops, white_ref(sess), takes_white)
    return {names[0]: x} | ({WHITE_INPUT: whites} if takes_white else {})


def session(model: Path | bytes, threads: int = 2):
    """An ONNX Runtime session made as the recognizer makes its own (a path or ONNX bytes)."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    opts.log_severity_level = 3
    src = model if isinstance(model, bytes) else str(model)
    return ort.InferenceSession(src, opts, providers=["CPUExecutionProvider"])


def softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def probabilities(sess, crops: list[np.ndarray], both_turns: bool = True, batch: int = 256) -> np.ndarray:
    """(N, 55) class probabilities; with both_turns, the crop and its half-turn averaged."""
    out = []
    for i in range(0, len(crops), batch):
        part = crops[i:i + batch]
        if both_turns:
            part = [c for k in part for c in (k, k[::-1, ::-1])]
        p = softmax(sess.run(None, classifier_feed(part, sess))[0])
        out.append((p[0::2] + p[1::2]) / 2 if both_turns else p)
    return np.concatenate(out) if out else np.zeros((0, len(CLASSES)), np.float32)


def straighten(image: np.ndarray, quad: np.ndarray, h: int = DISPLAY_H, w: int = DISPLAY_W) -> np.ndarray:
    """A portrait h x w image of the card (for the host's grid and the fit's augmentations)."""
    q = order_portrait(quad)
    dst = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    M = cv2.getPerspectiveTransform(q.astype(np.float32), dst)
    return cv2.warpPerspective(image, M, (w, h), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)


def sharpness(crop: np.ndarray) -> float:
    """Variance of the Laplacian of a 96x64 crop's grey: printed edges are crisp."""
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    return float(cv2.Laplacian(grey, cv2.CV_32F).var())


# ------------------------------------------------------------------------ finding cards
def find_cards(recognizer, image: np.ndarray) -> list[tuple[np.ndarray, float]]:
    """Every card in a photo of a deck laid out: (quad, detector score), the photo read in
    tiles when its cards are small (`CardRecognizer.detect_tiled`). Cards laid apart show
    their whole outline: the enrolled crop is cut at it, not at a box a few detector pixels
    off (a half card enrolled is a face learnt wrong)."""
    return [(order_portrait(refine_quad(image, q)), s) for q, s in recognizer.detect_tiled(image)]


# ------------------------------------------------------------------------ naming
def assign(probs: np.ndarray, faces: tuple[str, ...] = ALL_FACES) -> tuple[list[int | None], np.ndarray]:
    """Each card (row of `probs`, over CLASSES) to a distinct face, maximising the summed
    log-probability. Returns (face index per card or None for a card left over, the
    confidence of each card's name)."""
    from scipy.optimize import linear_sum_assignment

    n = len(probs)
    cols = [CLASSES.index(f) for f in faces]
    cost = -np.log(np.clip(probs[:, cols], 1e-12, 1.0))
    if n > len(faces):  # more cards than faces: the extra ones go to "left over"
        cost = np.hstack([cost, np.full((n, n - len(faces)), 30.0)])
    rows, picked = linear_sum_assignment(cost)
    best = cost[rows, picked].sum()
    face: list[int | None] = [None] * n
    for r, c in zip(rows, picked, strict=True):
        face[r] = int(c) if c < len(faces) else None
    conf = np.zeros(n)
    for r, c in zip(rows, picked, strict=True):
        if face[r] is None:
            continue
        alt = cost.copy()
        alt[r, c] = 1e6  # the best naming in which this card is something else
        ar, ac = linear_sum_assignment(alt)
        delta = alt[ar, ac].sum() - best
        conf[r] = 1.0 / (1.0 + math.exp(-min(delta, 50.0)))
    return face, conf


# ------------------------------------------------------------------------ learn
def read_photo(path: Path) -> np.ndarray:
    path = Path(path)
    if not path.is_file():
        raise DeckLearnError(f"{path}: no such file")
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise DeckLearnError(f"{path}: not a readable image (JPEG, PNG, ...)")
    return image


def examine(images: list[np.ndarray], names: list[str], recognizer, classifier_sess,
            faces: tuple[str, ...] = ALL_FACES) -> tuple[LearnReport, list[np.ndarray]]:
    """Find, check and name the cards of the photos. Returns the report and the 96x64
    crops of report.cards (same order)."""
    t0 = time.perf_counter()
    report = LearnReport(photos=list(names))
    found: list[FoundCard] = []
    crops: list[np.ndarray] = []
    for k, image in enumerate(images):
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        bright = float(grey.mean())
        if bright < MIN_BRIGHTNESS:
            report.photo_problems.append(
                f"{names[k]} is too dark (mean brightness {bright:.0f} of 255, needs {MIN_BRIGHTNESS:.0f}+): "
                "more light, then take it again")
            continue
        cards = find_cards(recognizer, image)
        if not cards:
            report.photo_problems.append(f"{names[k]}: no cards found (lay them face up, apart, on a plain table)")
            continue
        mine = [crop_from_quad(image, q) for q, _ in cards]
        sharp = [sharpness(c) for c in mine]
        if float(np.median(sharp)) < MIN_SHARPNESS:
            report.photo_problems.append(
                f"{names[k]} is blurred (sharpness {np.median(sharp):.0f}, needs {MIN_SHARPNESS:.0f}+): hold the "
                "camera still, let it focus, then take it again")
            continue
        probs = probabilities(classifier_sess, mine)
        for (q, s), p, sh, c in zip(cards, probs, sharp, mine, strict=True):
            found.append(FoundCard(k, q, s, p, sh))
            crops.append(c)
    back = CLASSES.index(BACK)
    faces_found = [i for i, f in enumerate(found) if f.probs[back] < BACK_PROB]
    report.backs = [f for f in found if f.probs[back] >= BACK_PROB]
    if faces_found:
        probs = np.stack([found[i].probs for i in faces_found])
        face, conf = assign(probs, faces)
        for i, fi, cf in zip(faces_found, face, conf, strict=True):
            if fi is None:
                report.leftovers.append(found[i])
            else:
                found[i].name, found[i].confidence = faces[fi], float(cf)
                report.cards.append(found[i])
    named = {c.name for c in report.cards}
    report.missing = [f for f in faces if f not in named]
    # the written order: photo by photo, top to bottom, left to right
    order = sorted(range(len(found)), key=lambda i: (found[i].image, *found[i].quad.mean(axis=0)[::-1]))
    keep = [i for i in order if found[i].name is not None]
    report.cards = [found[i] for i in keep]
    report.seconds = time.perf_counter() - t0
    return report, [crops[i] for i in keep]


def learn(
    name: str,
    photos: list[str | Path],
    *,
    replace: bool = False,
    allow_missing: bool = False,
    recognizer=None,
    out=print,
) -> LearnReport:
    """Learn deck NAME from photos of its cards laid out. Writes DATA/decks/NAME/ only when
    nothing is wrong (else DeckLearnError with every problem; no deck is changed)."""
    store.check_name(name)
    folder = store.deck_dir(name, must_exist=False)
    if folder.exists() and not replace:
        raise DeckLearnError(
            f"deck {name!r} exists already ({folder}): pass --replace to learn it again, or choose another name")
    if not photos:
        raise DeckLearnError("no photos given: lay the 54 faces out face up and take 1 to 6 photos")
    images = [read_photo(Path(p)) for p in photos]
    if recognizer is None:
        from vision.recognizer import CardRecognizer

        recognizer = CardRecognizer.default()
    sess = session(store.generic_classifier_path())
    labels = [Path(p).name for p in photos]
    if len(set(labels)) < len(labels):
        labels = [f"{i + 1}-{Path(p).name}" for i, p in enumerate(photos)]
    report, _ = examine(images, labels, recognizer, sess)
    problems = report.problems(allow_missing)
    if problems:
        raise DeckLearnError(
            "\n".join(report.lines()) + "\nnot learnt, because:\n  - " + "\n  - ".join(problems), report)
    if not report.cards:
        raise DeckLearnError("no cards found in the photos", report)
    # write it beside, then move it into place: a failure leaves no half deck behind
    root = store.decks_root()
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=root))
    tmp.chmod(0o755)  # a deck folder like any other (mkdtemp makes it private)
    try:
        (tmp / "images").mkdir()
        (tmp / "crops").mkdir()
        for i, img in enumerate(images):
            cv2.imwrite(str(tmp / "images" / _photo_file(i, labels[i])), img, [cv2.IMWRITE_JPEG_QUALITY, 95])
        rows = []
        for row, c in enumerate(report.cards, start=1):
            rows.append(EnrolledCard(row, "images/" + _photo_file(c.image, labels[c.image]), c.name, c.confidence,
                                     c.quad))
            cv2.imwrite(str(tmp / rows[-1].crop_name), straighten(images[c.image], c.quad))
        store.write_cards(tmp, rows)
        info = report.to_json() | {"generic": {"sha256": store.sha256(store.generic_classifier_path())},
                                   "learnt": time.strftime("%Y-%m-%dT%H:%M:%S"), "allow_missing": allow_missing}
        store.write_json(tmp / store.LEARN_FILE, info)
        if folder.exists():
            old = folder.with_name(f".{name}.old")
            shutil.rmtree(old, ignore_errors=True)
            folder.rename(old)
            tmp.rename(folder)
            shutil.rmtree(old, ignore_errors=True)
        else:
            tmp.rename(folder)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return report


def _some(names: list[str], most: int = 12) -> str:
    return ", ".join(names[:most]) + (f" and {len(names) - most} more" if len(names) > most else "")


def _photo_file(i: int, label: str) -> str:
    return f"{i + 1}-{Path(label).stem}.jpg"


__all__ = ["DeckLearnError", "LearnReport", "assign", "examine", "find_cards", "learn", "probabilities"]
