"""Decks taught to the table (`uno-table deck`): enrol a deck once, then read it better.

- `learn`: find and name the 54 faces laid out in 1-6 photos (vision.decks.learn);
- `fit`: adapt the classifier to the deck: its colours under this light, a new last layer
  (vision.decks.fit), written as `DATA/decks/NAME/deck_classifier.onnx` + `profile.json`;
- `deck_classifier(NAME)`: the fitted classifier, checked against the installed generic one,
  which `CardRecognizer` loads in place of the generic classifier.

Heavy imports (onnxruntime, onnx, scipy) happen inside the functions that need them.
"""

from vision.decks.store import (
    DeckError,
    DeckIncompatibleError,
    deck_classifier,
    deck_dir,
    deck_names,
    decks_root,
    remove,
    summary,
)

__all__ = [
    "DeckError",
    "DeckIncompatibleError",
    "deck_classifier",
    "deck_dir",
    "deck_names",
    "decks_root",
    "remove",
    "summary",
]
