"""Where a deck lives and what it holds: `DATA/decks/NAME/`.

    cards.csv              image,card,confidence,box: one row per enrolled card; the host may
                           edit `card` (box: the card's four corners "x1 y1 x2 y2 x3 y3 x4 y4"
                           in pixels of the image)
    crops/001.png ...      each card straightened, named by its row (row 1: 001.png)
    images/                the photos the cards were found in (`image` names one)
    learn.json             what `deck learn` found (counts, least sure names, timings)
    profile.json           after `deck fit`: the generic classifier it was fitted on (sha256),
                           the colours learnt, the fit's figures
    deck_classifier.onnx   after `deck fit`: the classifier adapted to this deck (same input
                           and output as the generic one, so the recognizer just loads it)
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from table.errors import UnoTableError
from vision.render import ALL_FACES

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")
CARDS_FILE = "cards.csv"
PROFILE_FILE = "profile.json"
MODEL_FILE = "deck_classifier.onnx"
DETECTOR_FILE = "deck_detector.onnx"  # `python -m models deck-detector`: the table's detector, taught this deck
LEARN_FILE = "learn.json"
# 2: fitted on crops fed as the recognizer feeds them (white-normalised), with the gate;
# a format-1 deck learnt other pictures of its cards: it is fitted again, its cards kept
PROFILE_FORMAT = 2
FIELDS = ("image", "card", "confidence", "box")


class DeckError(UnoTableError, ValueError):
    """A deck that cannot be learnt, fitted or used; the message says what is wrong."""


class DeckIncompatibleError(DeckError):
    """A deck profile fitted on another generic classifier than the one installed."""


def decks_root() -> Path:
    from table.paths import data_dir

    return data_dir() / "decks"


def check_name(name: str) -> str:
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise DeckError(
            f"deck name {name!r}: use 1-40 letters, digits, '-', '_' or '.', starting with a letter or digit"
        )
    return name


def deck_names() -> list[str]:
    root = decks_root()
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if p.is_dir() and NAME_RE.match(p.name) and (p / CARDS_FILE).is_file())


def deck_dir(name: str, must_exist: bool = True) -> Path:
    path = decks_root() / check_name(name)
    if must_exist and not (path / CARDS_FILE).is_file():
        known = deck_names()
        listing = ", ".join(known) if known else "none yet: `uno-table deck learn NAME IMAGE...`"
        raise DeckError(f"no deck named {name!r} in {decks_root()} (decks: {listing})")
    return path


def generic_classifier_path() -> Path:
    """The classifier the recognizer loads without a deck (the data dir's override first)."""
    from vision.recognizer import CLASSIFIER_FILE, model_path

    return model_path(CLASSIFIER_FILE)


def generic_detector_path(photos: bool = False) -> Path:
    """The detector the recognizer loads by default (the data dir's override first);
    photos: the still photos' one (`vision.recognizer.PHOTO_DETECTOR_FILE`)."""
    from vision.recognizer import DETECTOR_FILE, model_path

    return model_path(DETECTOR_FILE, photos)


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with Path(path).open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# ------------------------------------------------------------------------ cards.csv
@dataclass
class EnrolledCard:
    row: int  # 1-based, the crop's file name
    image: str  # the photo, relative to the deck's folder
    card: str
    confidence: float
    quad: np.ndarray  # 4x2 corners in the photo's pixels

    @property
    def crop_name(self) -> str:
        return f"crops/{self.row:03d}.png"


def format_quad(quad) -> str:
    return " ".join(f"{v:.1f}" for v in np.asarray(quad, np.float32).reshape(-1))


def write_cards(folder: Path, cards: list[EnrolledCard]) -> None:
    tmp = folder / (CARDS_FILE + ".tmp")
    with tmp.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(FIELDS)
        for c in cards:
            w.writerow([c.image, c.card, f"{c.confidence:.3f}", format_quad(c.quad)])
    tmp.replace(folder / CARDS_FILE)


def read_cards(folder: Path) -> list[EnrolledCard]:
    """cards.csv, checked: each row a known face and four corners; a clear message per row."""
    path = folder / CARDS_FILE
    try:
        text = path.read_text()
    except OSError as exc:
        raise DeckError(f"cannot read {path}: {exc.strerror}") from None
    rows = list(csv.DictReader(text.splitlines()))
    if not rows and "card" not in text:
        raise DeckError(f"{path}: empty (expected the header {','.join(FIELDS)})")
    cards, problems = [], []
    for i, r in enumerate(rows, start=1):
        where = f"{path.name} row {i}"
        card = (r.get("card") or "").strip()
        if card not in ALL_FACES:
            hint = " (a card back is not a face: take it out of the deck's photos)" if card == "back" else ""
            problems.append(f"{where}: {card!r} is not a card name like red-7, blue-skip, wild-draw4{hint}")
            continue
        try:
            quad = np.array([float(v) for v in (r.get("box") or "").split()], np.float32).reshape(4, 2)
        except ValueError:
            problems.append(f"{where}: box {r.get('box')!r} is not four corners 'x1 y1 ... x4 y4'")
            continue
        try:
            conf = float(r.get("confidence") or 0.0)
        except ValueError:
            conf = 0.0
        cards.append(EnrolledCard(i, (r.get("image") or "").strip(), card, conf, quad))
    if problems:
        raise DeckError("; ".join(problems))
    return cards


def face_problems(cards: list[EnrolledCard]) -> tuple[list[str], dict[str, list[int]]]:
    """(faces missing, {face: rows} for faces named more than once)."""
    rows: dict[str, list[int]] = {}
    for c in cards:
        rows.setdefault(c.card, []).append(c.row)
    missing = [f for f in ALL_FACES if f not in rows]
    doubled = {f: r for f, r in rows.items() if len(r) > 1}
    return missing, doubled


def describe_faces(missing: list[str], doubled: dict[str, list[int]]) -> str:
    parts = []
    if doubled:
        parts.append("named twice: " + ", ".join(f"{f} (rows {', '.join(map(str, r))})" for f, r in doubled.items()))
    if missing:
        parts.append(f"{len(missing)} missing: " + ", ".join(missing))
    return "; ".join(parts)


# ------------------------------------------------------------------------ profile
def read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise DeckError(f"{path} cannot be read ({exc}): run `uno-table deck fit` again") from None


def write_json(path: Path, data: dict) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=1))
    tmp.replace(path)


def deck_classifier(name: str) -> Path:
    """The fitted classifier of deck NAME, checked against the generic classifier installed.

    Refuses (DeckError) an unknown deck, a deck not fitted yet, and a profile fitted on
    another generic classifier (DeckIncompatibleError): nothing is loaded then."""
    folder = deck_dir(name)
    profile = read_json(folder / PROFILE_FILE)
    model = folder / MODEL_FILE
    if profile is None or not model.is_file():
        raise DeckError(f"deck {name!r} is enrolled but not fitted: run `uno-table deck fit {name}`")
    check_compatible(name, profile)
    return model


def deck_detector(name: str) -> Path | None:
    """Deck NAME's own table detector (`python -m models deck-detector`), or None when it has
    none (the generic one reads its table)."""
    path = deck_dir(name) / DETECTOR_FILE
    return path if path.is_file() else None


def check_compatible(name: str, profile: dict) -> None:
    if profile.get("format") != PROFILE_FORMAT:
        raise DeckIncompatibleError(
            f"deck {name!r}: profile format {profile.get('format')!r}, this version reads format "
            f"{PROFILE_FORMAT}: run `uno-table deck fit {name}` again (its cards are kept)"
        )
    want = (profile.get("generic") or {}).get("sha256", "")
    path = generic_classifier_path()
    have = sha256(path)
    if want != have:
        raise DeckIncompatibleError(
            f"deck {name!r} was fitted on another card classifier (sha256 {want[:12] or '?'}, "
            f"{(profile.get('generic') or {}).get('version', 'unknown version')}) than the one installed "
            f"({path}, sha256 {have[:12]}): run `uno-table deck fit {name}` again (its cards are kept)"
        )


@dataclass
class DeckSummary:
    name: str
    cards: int
    faces: int
    missing: list[str]
    doubled: dict[str, list[int]]
    fitted: str | None  # when, or None
    stale: bool  # cards.csv changed since the fit
    compatible: str | None  # None: fine; else why it cannot be used
    figures: dict
    tuned: dict | None = None  # `python -m models deck-tune`: the whole classifier fine-tuned
    detector: dict | None = None  # `python -m models deck-detector`: the table's detector taught this deck

    def to_json(self) -> dict:
        return dict(self.__dict__)


def summary(name: str) -> DeckSummary:
    folder = deck_dir(name)
    try:
        cards = read_cards(folder)
        missing, doubled = face_problems(cards)
        n_cards = len(cards)
    except DeckError as exc:
        cards, missing, doubled, n_cards = [], [str(exc)], {}, -1
    profile = read_json(folder / PROFILE_FILE) if (folder / PROFILE_FILE).exists() else None
    fitted = stale = None
    why = None
    figures: dict = {}
    if profile is not None:
        fitted = profile.get("fitted")
        stale = profile.get("cards_sha256") != sha256(folder / CARDS_FILE)
        figures = profile.get("figures", {})
        try:
            check_compatible(name, profile)
        except DeckIncompatibleError as exc:
            why = str(exc)
    else:
        why = "not fitted yet"
    return DeckSummary(name, n_cards, len({c.card for c in cards}), missing, doubled, fitted, bool(stale), why,
                       figures, (profile or {}).get("tuned"),
                       (profile or {}).get("detector") if (folder / DETECTOR_FILE).is_file() else None)


def remove(name: str) -> Path:
    folder = deck_dir(name)
    shutil.rmtree(folder)
    return folder


__all__ = [
    "DeckError", "DeckIncompatibleError", "EnrolledCard", "check_name", "deck_classifier", "deck_detector", "deck_dir",
    "deck_names", "decks_root", "face_problems", "generic_classifier_path", "read_cards", "remove",
    "summary", "write_cards",
]
