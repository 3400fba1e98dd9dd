"""The dashboard's view of the referee's state: one JSON-ready dict (``snapshot``)."""

from __future__ import annotations

from typing import Any

from table.cards import CARD_IDS, COLOURS
from table.referee.scoring import awaiting_reveal as awaiting_reveal_seats
from table.referee.state import (
    CHALLENGE,
    COLOUR,
    DEALER_DRAW,
    DRAWN,
    FLIP,
    IN_ROUND,
    REVEAL,
    ROUND_OVER,
    SWAP,
    State,
)


def snapshot(s: State) -> dict[str, Any]:
    """The dashboard's view of the game (JSON-ready)."""
    n = s.rules.n

    def seats(mask: int) -> list[int]:
        return [i for i in range(n) if mask >> i & 1]

    awaiting_reveal = None
    if s.phase == REVEAL:
        awaiting_reveal = [s.challenged]
    elif s.phase == ROUND_OVER:
        awaiting_reveal = awaiting_reveal_seats(s)
    return {
        "seq": s.seq,
        "rules": s.rules.config.name,
        "players": n,
        "round": s.round,
        "phase": s.phase,
        "dealer": s.dealer,
        "turn": s.turn if s.phase in IN_ROUND else None,
        "direction": s.direction,
        "colour": COLOURS[s.colour] if s.colour >= 0 else None,
        "top_card": CARD_IDS[s.top] if s.top >= 0 else None,
        "discard_count": len(s.discard),
        "draw_pile": s.draw_count,
        "hand_counts": list(s.hands),
        "uno": {"called": seats(s.called), "catchable": seats(s.exposed), "caught": seats(s.caught)},
        "awaiting": {
            "dealer_draw": list(s.dealer_seats) if s.phase == DEALER_DRAW else None,
            "starter": s.phase == FLIP,
            "colour": s.colour_seat if s.phase == COLOUR else None,
            "challenge": s.challenger if s.phase == CHALLENGE else None,
            "reveal": awaiting_reveal,
            "spin": s.spin.seat if s.spin is not None and s.spin.outcome is None else None,
        },
        "drawn_this_turn": s.phase == DRAWN,
        "spin": None if s.spin is None else {
            "seat": s.spin.seat,
            "outcome": s.spin.outcome.value if s.spin.outcome is not None else None,
            "colour": COLOURS[s.spin.colour] if s.spin.colour >= 0 else None,
        },
        "pending_draws": [p.as_dict() for p in s.pending],
        "deferred_penalties": [
            {"seat": d.seat, "count": d.count, "rule": d.rule, "reason": d.reason} for d in s.deferred
        ],
        "last_verdicts": [e.to_dict() for e in s.verdicts],
        "winner": s.winner if s.winner >= 0 else None,
        "scores": list(s.scores),
        "target": s.rules.target,
        "format": s.rules.match_config.format,
        "turns": s.turns,
        "out": seats(s.out),
        "finish_order": list(s.finish),
        "swap": s.swap_seat if s.phase == SWAP else None,
        "colour_locked": s.lock,
        "windows": [
            {"window": w.kind.value, "seat": w.seat, "rule": w.rule, "presses": [[p.seat, p.at] for p in w.presses]}
            for w in s.windows
        ],
        "score_held": [[h.seat, h.tracked, h.revealed] for h in s.held] if s.held else None,
        "match_over": s.match.over if s.match is not None else False,
        "seating": list(s.seating),
    }
