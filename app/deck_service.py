"""The deck page's service (web_ui/deck.py `DeckService`): decks taught from the table
camera, checked by the host, fitted in the background and switched live.

The app wires it: it keeps the newest camera frame from the vision pipeline (a listener:
no second camera reader), and switches the pipeline's ONNX detector to a deck's classifier
(`OnnxDetector.use_deck`). Learning and fitting run in one background thread, one job at a
time; the page polls the job.
"""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

import cv2

from table.errors import UnoTableError


class DeckServiceError(UnoTableError, ValueError):
    """A deck request that cannot be done now (the message says why); nothing changed."""


class DeckService:
    def __init__(self, pipeline=None, max_captures: int = 6):
        self.pipeline = pipeline
        self.max_captures = max_captures
        self._frame = None
        self._lock = threading.Lock()
        self._job: dict | None = None
        self._thread: threading.Thread | None = None
        if pipeline is not None:
            pipeline.listeners.append(self._on_frame)

    # ------------------------------------------------------------------ frames
    def _on_frame(self, result) -> None:
        self._frame = result.frame.image  # a reference: the pipeline never writes into it

    def _captures_dir(self, name: str) -> Path:
        from vision.decks import decks_root
        from vision.decks.store import check_name

        return decks_root() / ".captures" / check_name(name)

    def _captures(self, name: str) -> list[Path]:
        folder = self._captures_dir(name)
        return sorted(folder.glob("capture-*.jpg")) if folder.is_dir() else []

    # ------------------------------------------------------------------ reads
    def decks(self) -> dict:
        from vision.decks import deck_names, decks_root, summary
        from vision.render import ALL_FACES

        root = decks_root() / ".captures"
        captures = {p.name: len(list(p.glob("capture-*.jpg"))) for p in root.iterdir() if p.is_dir()} \
            if root.is_dir() else {}
        return {
            "decks": [summary(n).to_json() for n in deck_names()],
            "in_use": self.in_use(),
            "job": self.job(),
            "captures": captures,
            "faces": list(ALL_FACES),
            "camera": self._frame is not None,
        }

    def in_use(self) -> str | None:
        det = getattr(self.pipeline, "detector", None)
        return getattr(det, "deck", None)

    def deck(self, name: str) -> dict:
        from vision.decks import deck_dir, summary
        from vision.decks.store import read_cards

        folder = deck_dir(name)
        cards = read_cards(folder)
        return {
            "name": name,
            "cards": [{"row": c.row, "card": c.card, "confidence": round(c.confidence, 3), "image": c.image}
                      for c in cards],
            "summary": summary(name).to_json(),
        }

    def crop(self, name: str, row: int) -> bytes:
        from vision.decks import deck_dir

        path = deck_dir(name) / "crops" / f"{row:03d}.png"
        if not path.is_file():
            raise DeckServiceError(f"deck {name!r} has no card in row {row}")
        return path.read_bytes()

    # ------------------------------------------------------------------ changes
    def rename(self, name: str, row: int, card: str) -> dict:
        from vision.decks import deck_dir
        from vision.decks.store import read_cards, write_cards
        from vision.render import ALL_FACES

        if card not in ALL_FACES:
            raise DeckServiceError(f"{card!r} is not a card name like red-7, blue-skip, wild-draw4")
        self._idle(name)
        folder = deck_dir(name)
        cards = read_cards(folder)
        hit = [c for c in cards if c.row == row]
        if not hit:
            raise DeckServiceError(f"deck {name!r} has no card in row {row}")
        hit[0].card = card
        hit[0].confidence = 1.0  # named by the host
        write_cards(folder, cards)
        return self.deck(name)

    def capture(self, name: str) -> dict:
        frame = self._frame
        if frame is None:
            raise DeckServiceError("no camera frame yet: is the camera on? (see the Camera page)")
        folder = self._captures_dir(name)
        have = self._captures(name)
        if len(have) >= self.max_captures:
            raise DeckServiceError(f"{len(have)} captures already (at most {self.max_captures}): learn the deck, "
                                   "or clear the captures")
        folder.mkdir(parents=True, exist_ok=True)
        n = int(have[-1].stem.split("-")[1]) + 1 if have else 1
        path = folder / f"capture-{n}.jpg"
        if not cv2.imwrite(str(path), frame, [cv2.IMWRITE_JPEG_QUALITY, 95]):
            raise DeckServiceError(f"cannot write {path}")
        return {"deck": name, "captures": len(have) + 1}

    def clear_captures(self, name: str) -> dict:
        shutil.rmtree(self._captures_dir(name), ignore_errors=True)
        return {"deck": name, "captures": 0}

    def learn(self, name: str, *, replace: bool, allow_missing: bool) -> dict:
        from vision.decks.store import check_name

        check_name(name)
        photos = self._captures(name)
        if not photos:
            raise DeckServiceError(f"no captures for deck {name!r}: lay the cards out face up, apart, and press Capture")

        def work(job):
            from vision.decks.learn import DeckLearnError, learn

            job["stage"] = "finding and naming the cards"
            try:
                report = learn(name, photos, replace=replace, allow_missing=allow_missing,
                               recognizer=self._recognizer())
            except DeckLearnError as exc:
                job["report"] = exc.report.to_json() if exc.report is not None else None
                raise
            job["report"] = report.to_json()
            job["message"] = "\n".join(report.lines())
            shutil.rmtree(self._captures_dir(name), ignore_errors=True)

        return self._start("learn", name, work)

    def fit(self, name: str) -> dict:
        from vision.decks import deck_dir

        deck_dir(name)

        def work(job):
            from vision.decks.fit import fit

            def callback(stage, done, total):
                job.update(stage=stage, done=done, total=total)

            profile = fit(name, progress=False, callback=callback)
            held = profile["figures"]["held_back"]
            job["message"] = (f"fitted in {profile['fit_seconds']:.0f} s; top-1 on held-back augmentations: "
                              f"generic {held['generic_top1']:.3f}, fitted {held['deck_top1']:.3f}")

        return self._start("fit", name, work)

    def use(self, name: str | None) -> dict:
        det = getattr(self.pipeline, "detector", None)
        if det is None or not hasattr(det, "use_deck"):
            raise DeckServiceError("this table's detector does not read decks (decks need the onnx detector)")
        det.use_deck(name)  # a deck that cannot be used raises its DeckError; the reading stays
        cache = getattr(self.pipeline, "_region_cache", None)
        if isinstance(cache, dict):
            cache.clear()  # readings of the old classifier are not kept
        return {"in_use": self.in_use()}

    def remove(self, name: str) -> dict:
        from vision.decks import remove

        self._idle(name)
        if self.in_use() == name:
            raise DeckServiceError(f"deck {name!r} is in use: choose another deck (or the generic model) first")
        remove(name)
        return {"removed": name}

    # ------------------------------------------------------------------ jobs
    def job(self) -> dict | None:
        with self._lock:
            return None if self._job is None else dict(self._job)

    def _idle(self, name: str) -> None:
        j = self.job()
        if j is not None and j["state"] == "running" and j["deck"] == name:
            raise DeckServiceError(f"deck {name!r} is being {'learnt' if j['kind'] == 'learn' else 'fitted'}: wait")

    def _recognizer(self):
        det = getattr(self.pipeline, "detector", None)
        rec = getattr(det, "recognizer", None)
        if rec is not None and getattr(det, "deck", None) is None:
            return rec
        return None  # learn loads the generic recognizer itself

    def _start(self, kind: str, name: str, work) -> dict:
        with self._lock:
            if self._job is not None and self._job["state"] == "running":
                raise DeckServiceError(f"a {self._job['kind']} of deck {self._job['deck']!r} is running: wait for it")
            job = {"kind": kind, "deck": name, "state": "running", "stage": "starting", "done": 0, "total": 0,
                   "message": "", "started": time.time()}
            self._job = job

        def run():
            try:
                work(job)
                job["state"] = "done"
            except Exception as exc:  # noqa: BLE001 - reported to the page, the table goes on
                job["state"] = "failed"
                job["message"] = str(exc)
            job["seconds"] = round(time.time() - job["started"], 1)

        self._thread = threading.Thread(target=run, name=f"deck-{kind}", daemon=True)
        self._thread.start()
        return dict(job)

    def wait(self, timeout: float | None = None) -> dict | None:
        """Until the running job ends (tests, scripts)."""
        if self._thread is not None:
            self._thread.join(timeout)
        return self.job()
