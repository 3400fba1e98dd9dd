"""The referee: a pure state machine ``step(state, input) -> (new_state, events)``.

No clock, camera, GPIO or randomness in here: times come inside inputs (gesture ``at``) and
shuffles and spins happen outside (the simulator, the real table). The referee never sees
hands: it keeps hand COUNTS (deal, +draws, -plays), the discard pile (it sees every card
placed), the draw pile's size, and the UNO/challenge/colour obligations, and checks every
play against RULES.md. ``advance(state, input)`` mutates a state in place (the simulator and
replay use it); ``step`` copies first, so it is pure. Validation of JSON happens at the
boundary (``table.inputs.parse_input``); ``check_input`` rejects structurally bad inputs by
raising InputError before anything changes. Everything else a table can throw at the
referee -- a card out of turn, an illegal card, a press at the wrong moment -- becomes an
event (``illegal_play``, ``input_rejected``, ``notice``), never an exception.

One module per rule section of RULES.md:

==================  ===========================================================================
module              holds
==================  ===========================================================================
``state``           phases, the compiled ``Rules``, ``State`` and its small frozen records
``common``          next seat, playability (P2, P3), drawing and reshuffling (P9), penalties
``core``            ``step``, ``advance``, ``check_input``, seat-button gestures, the handlers
``setup``           S: dealer, deal, starter card; T2 seating, T3 team draw
``turns``           P: a play checked and accepted, a turn's draw and pass (P1-P7, H5-H7)
``actions``         A: Skip, Reverse, Draw Two (A1-A5), the pending stack (H1-H4)
``wilds``           W: wild cards, the colour, the challenge (W1-W4)
``uno``             U: calling UNO, catching, strict mode (U1-U6)
``house``           H: stacking rules, jump-in, multi-play, Seven-O, red 0, attack (H1-H9, H12)
``claims``          H5 at the table: a seat's hold says whose card the camera saw land
``windows``         H10 Silent 2 and H11 Slap 9: timed seat-button windows
``spin``            H13 UNO Spin: the wheel's outcomes
``scoring``         R: going out, end of round, reveals and the score (R1-R7, T1)
``host``            host corrections: counts, penalties (P8), ending a round
``inference``       what an observation means: whose reveal it is, what a reach into the pile is
``view``            ``snapshot``: the dashboard's JSON view
==================  ===========================================================================

Replaying a log (corrections included) is ``table.replay.replay``.
"""

from __future__ import annotations

from typing import Any

from table.referee.common import card_text, current_text, is_playable, next_seat
from table.referee.core import advance, check_input, interpret_gesture, needs_roll, step
from table.referee.house import may_jump_in, multi_play_ok, stack_reason, until_stop
from table.referee.inference import draw_reach, reveal_owner
from table.referee.scoring import awaiting_reveal, match_summary
from table.referee.spin import SPIN_WHEEL, spin_wheel, wheel_segment, wheel_segments
from table.referee.state import (
    CHALLENGE,
    COLOUR,
    DEALER_DRAW,
    DECK_SIZE,
    DRAWN,
    FLIP,
    IDLE,
    IN_ROUND,
    MATCH_OVER,
    NO_CARD,
    PLAY,
    REVEAL,
    ROUND_OVER,
    SPIN,
    SWAP,
    UNKNOWN_CARD,
    VOLUNTARY_DRAW_RULES,
    AfterColour,
    DeferredPenalty,
    HeldCount,
    PendingDraw,
    Phase,
    PhaseName,
    Rules,
    ScoreStatus,
    SlapPress,
    SpinOutcome,
    SpinState,
    StackCard,
    State,
    Window,
    WindowKind,
    new_state,
)
from table.referee.view import snapshot
from table.referee.wilds import wild_draw4_allowed

__all__ = [
    "CHALLENGE", "COLOUR", "DEALER_DRAW", "DECK_SIZE", "DRAWN", "FLIP", "IDLE", "IN_ROUND",
    "MATCH_OVER", "NO_CARD", "PLAY", "REVEAL", "ROUND_OVER", "SPIN", "SPIN_WHEEL", "SWAP",
    "UNKNOWN_CARD", "VOLUNTARY_DRAW_RULES", "AfterColour", "DeferredPenalty", "HeldCount",
    "PendingDraw", "Phase", "PhaseName", "Rules", "ScoreStatus", "SlapPress", "SpinOutcome", "SpinState",
    "StackCard", "State", "Window", "WindowKind", "advance", "awaiting_reveal", "card_text",
    "check_input", "current_text", "draw_reach", "interpret_gesture", "is_playable", "match_summary",
    "may_jump_in", "multi_play_ok", "needs_roll", "new_state", "next_seat", "reveal_owner", "snapshot",
    "spin_wheel", "stack_reason", "step", "until_stop", "wheel_segment", "wheel_segments", "wild_draw4_allowed",
]  # fmt: skip


def __getattr__(name: str) -> Any:
    # `replay` and `effective_inputs` live in table.replay (which folds inputs through this
    # package); still reachable here for callers written before it moved.
    if name in ("replay", "effective_inputs"):
        import table.replay

        return getattr(table.replay, name)
    raise AttributeError(f"module 'table.referee' has no attribute {name!r}")
