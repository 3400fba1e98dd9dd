"""The default backend: the shipped ONNX model(s) through ONNX Runtime (vision.recognizer)."""

from __future__ import annotations

import os

import numpy as np

from vision.errors import ModelError
from vision.types import CardDetection


def default_threads() -> int:
    """ONNX Runtime threads per model: half the usable cores, 1 at least, 3 at most. The
    table's two zones are read side by side (`CardRecognizer.recognize_many`), each by its
    own thread, so more would only queue on the same cores: on these 2 cores one thread a
    model read the busy bench frame in 40.5 ms against 44.2 ms with two (models/README.md,
    fourteenth session); 2 on a 4-core Pi 4 or 5."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 2
    return max(1, min(3, cores // 2))


class OnnxDetector:
    name = "onnx"

    def __init__(self, config):
        self.cfg = self.base_cfg = config
        try:
            from vision.recognizer import CardRecognizer
        except ImportError as exc:
            raise ModelError(f"the ONNX card recognizer is not available: {exc}") from exc
        deck = getattr(config, "deck", None)
        if deck is not None:  # a deck taught to the table: its own classifier (checked first)
            from vision.decks import DeckError, deck_classifier

            if config.classifier_path is not None:
                raise DeckError(f"deck {deck!r} brings its own classifier: give a deck or a classifier, not both")
            from vision.decks.store import deck_detector, generic_detector_path

            # the table reads with the deck's own detector where one was taught (`python -m
            # models deck-detector`); still photos keep the photos' detector
            detector = config.detector_path or (None if config.tiles else deck_detector(deck)) \
                or generic_detector_path(config.tiles)
            config = config.model_copy(update={"classifier_path": deck_classifier(deck), "detector_path": detector})
            self.cfg = config
        threads = config.threads or default_threads()
        try:
            # still photos (tiles) are read with the photos' detector; one file overridden:
            # the other is the shipped one, not a data dir's own
            from vision.recognizer import PACKAGE_MODELS

            overridden = config.detector_path is not None or config.classifier_path is not None
            self.recognizer = CardRecognizer.default(
                photos=config.tiles,
                folder=PACKAGE_MODELS if overridden else None,
                detector_path=config.detector_path,
                classifier_path=config.classifier_path,
                threads=threads,
                tiles=config.tiles,
            )
        except ModelError:
            raise
        except FileNotFoundError as exc:
            raise ModelError(f"model file not found: {exc.filename or exc}") from exc
        except Exception as exc:  # noqa: BLE001 - onnxruntime raises its own kinds on a bad file
            raise ModelError(
                f"cannot load the card model ({config.detector_path or 'shipped detector'}, "
                f"{config.classifier_path or 'shipped classifier'}): {exc}"
            ) from exc
        self.timings: dict[str, float] = {}

    @property
    def deck(self) -> str | None:
        return getattr(self.cfg, "deck", None)

    def use_deck(self, deck: str | None) -> None:
        """Read with deck NAME's classifier from the next frame on (None: the generic model).
        A deck that cannot be used raises its DeckError and the current reading stays."""
        fresh = OnnxDetector(self.base_cfg.model_copy(update={"deck": deck}))
        old, self.cfg, self.recognizer = self.recognizer, fresh.cfg, fresh.recognizer
        old.close()

    def detect(self, image: np.ndarray, truth=None) -> list[CardDetection]:
        dets, self.timings = self._kept(*self.recognizer.recognize_timed(image))
        return dets

    def detect_many(self, images: list[np.ndarray], owns: list | None = None,
                    ) -> list[tuple[list[CardDetection], dict[str, float]]]:
        """`detect` of several crops of one frame, read side by side; each with its stage
        times. `owns`: each crop's zone in its own pixels (`CardRecognizer.recognize_timed`)."""
        return [self._kept(dets, t) for dets, t in self.recognizer.recognize_many(images, owns)]

    def _kept(self, dets: list[CardDetection], timings: dict) -> tuple[list[CardDetection], dict[str, float]]:
        """The readings sure enough to report, and the stage times as plain floats."""
        floor = self.cfg.min_confidence
        return [d for d in dets if d.confidence >= floor], {k: float(v) for k, v in timings.items()}
