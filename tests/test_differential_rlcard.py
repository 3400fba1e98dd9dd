"""Differential test: single-card legality against RLCard 1.2.0, an independent engine.

Left out on purpose (the engines differ by design, not by bug):
- Wild Draw Four: RLCard offers it only when nothing else is playable (seed 002's variant);
  we allow it under the official rule and settle it by a challenge (W2/W3).
- Drawing: RLCard never offers a voluntary draw ('draw' only when nothing is playable);
  we allow it (P5).
Everything else -- number, colour and symbol matches, action cards on action cards, plain
Wilds, and matching after a Wild by the named colour only -- must agree on every position.
"""

import random

import numpy as np
import pytest
from rlcard.games.uno.card import UnoCard
from rlcard.games.uno.player import UnoPlayer
from rlcard.games.uno.round import UnoRound

from table.cards import CARD_IDS, COLOURS, FACE_OF, WILD, WILD_DRAW4
from table.referee import is_playable, new_state
from table.rules import preset

RL_COLOUR = {"red": "r", "yellow": "y", "green": "g", "blue": "b"}
RL_TRAIT = {"draw2": "draw_2"}


def to_rlcard(card_id: str, named: str | None = None) -> UnoCard:
    if card_id in ("wild", "wild-draw4"):
        trait = "wild" if card_id == "wild" else "wild_draw_4"
        return UnoCard("wild", RL_COLOUR[named or "red"], trait)  # a held wild has no colour yet
    colour, rank = card_id.split("-")
    kind = "number" if rank.isdigit() else "action"
    return UnoCard(kind, RL_COLOUR[colour], RL_TRAIT.get(rank, rank))


def rl_str(card_id: str) -> str:
    colour, rank = card_id.split("-")
    return f"{RL_COLOUR[colour]}-{RL_TRAIT.get(rank, rank)}"


def compare(rng: random.Random, state, rl_round: UnoRound, player: UnoPlayer) -> int:
    """One random position; returns how many cards were compared."""
    top = rng.choice(CARD_IDS[:-1])  # a Wild Draw Four never stays a starter, but can be on top
    if rng.random() < 0.1:
        top = "wild-draw4"
    named = rng.choice(COLOURS) if top in ("wild", "wild-draw4") else None
    hand = [rng.choice(CARD_IDS) for _ in range(rng.randint(1, 10))]
    state.top = FACE_OF[top]
    state.colour = COLOURS.index(named) if named else FACE_OF[top] // 13
    rl_round.target = to_rlcard(top, named)
    player.hand = [to_rlcard(c) for c in hand]
    legal = set(rl_round.get_legal_actions([player], 0))
    compared = 0
    for card in hand:
        face = FACE_OF[card]
        if face == WILD_DRAW4:
            continue  # see the module docstring
        ours = is_playable(state, face)
        if face == WILD:
            theirs = any(a.endswith("-wild") for a in legal)
        else:
            theirs = rl_str(card) in legal
        assert ours == theirs, f"top {top} (named {named}), card {card}: ours {ours}, RLCard {theirs}"
        compared += 1
    return compared


@pytest.mark.rule("P2", "P3", "W1")
def test_single_card_legality_agrees_with_rlcard_on_thousands_of_positions():
    rng = random.Random(20261130)
    state = new_state(preset("official"))
    rl_round = UnoRound(0, 2, np.random.RandomState(0))
    player = UnoPlayer(0, np.random.RandomState(0))
    positions = 5000
    compared = sum(compare(rng, state, rl_round, player) for _ in range(positions))
    assert compared > 20000  # every non-WD4 card of 5,000 random hands was compared


def test_the_comparison_can_fail():
    """Guard against a vacuous differential: a deliberately wrong rule is caught."""
    rng = random.Random(1)
    state = new_state(preset("official"))
    rl_round = UnoRound(0, 2, np.random.RandomState(0))
    player = UnoPlayer(0, np.random.RandomState(0))
    import table.referee as referee

    original = referee.is_playable
    globals()["is_playable"] = lambda s, f: f >= WILD or f // 13 == s.colour  # forgets numbers
    try:
        with pytest.raises(AssertionError, match="RLCard"):
            for _ in range(200):
                compare(rng, state, rl_round, player)
    finally:
        globals()["is_playable"] = original
