"""What the referee knows: the phases, the rules compiled for the hot path, small typed
records (a pending draw, a deferred penalty, a timed window, a held score, a spin) and the
``State`` itself.

Hot path: ``State`` is a plain slotted class with ints, lists, bitmasks and tuples of frozen
records. ``advance`` mutates a state in place; ``step`` copies first (``State.copy`` copies
the three lists; every record is frozen and shared).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final, Literal

from table.cards import REVERSE, SKIP, point_table
from table.events import Event
from table.inputs import Input
from table.rules import HouseRules, RulesConfig

DECK_SIZE = 108


PhaseName = Literal[
    "idle", "dealer-draw", "flip", "play", "drawn", "colour", "swap", "challenge", "reveal",
    "spin", "round-over", "match-over",
]  # fmt: skip


class Phase:
    """What the referee waits for (``State.phase``, a PhaseName). Plain strings, not an Enum:
    the phase is compared on every input, and a str compares several times faster than a
    StrEnum member."""

    IDLE: Final = "idle"  # no round yet (or between rounds: see ROUND_OVER)
    DEALER_DRAW: Final = "dealer-draw"  # S2: seats turn up a card each to choose the dealer
    FLIP: Final = "flip"  # S3/S4: waiting for the starter card
    PLAY: Final = "play"  # the turn seat plays, draws or passes
    DRAWN: Final = "drawn"  # the turn seat drew (P6): may play the drawn card or pass
    COLOUR: Final = "colour"  # a Wild was played: its player names the colour
    SWAP: Final = "swap"  # H8: a 7 was played: its player names the seat to swap hands with
    CHALLENGE: Final = "challenge"  # W3: the seat told to draw 4 challenges or accepts
    REVEAL: Final = "reveal"  # W3: the challenged seat lays its hand face up
    SPIN: Final = "spin"  # H13: the turn seat spins the wheel, then does what it says
    ROUND_OVER: Final = "round-over"  # a seat went out; remaining hands are revealed for scoring
    MATCH_OVER: Final = "match-over"


IDLE, DEALER_DRAW, FLIP, PLAY, DRAWN = Phase.IDLE, Phase.DEALER_DRAW, Phase.FLIP, Phase.PLAY, Phase.DRAWN
COLOUR, SWAP, CHALLENGE, REVEAL, SPIN = Phase.COLOUR, Phase.SWAP, Phase.CHALLENGE, Phase.REVEAL, Phase.SPIN
ROUND_OVER, MATCH_OVER = Phase.ROUND_OVER, Phase.MATCH_OVER
IN_ROUND = frozenset({PLAY, DRAWN, COLOUR, CHALLENGE, REVEAL, SWAP, SPIN})

NO_CARD = -1  # State.drawn: nothing drawn this turn
UNKNOWN_CARD = -2  # State.drawn: drew, face unknown (a real table)

#: Draws a seat makes by its own reach, reported to the referee (a turn's draw, P5; the card
#: a pass implies, P6; each card of H7's draw until playable; H13's draw until a colour).
#: Every other CardsDrawn is a draw the referee ordered, which the table still has to fetch.
VOLUNTARY_DRAW_RULES = frozenset({"P5", "P6", "H7", "H13"})


class AfterColour(StrEnum):
    """What follows the naming of a colour (State.after_colour)."""

    NONE = ""
    START = "start"  # S4: a Wild starter; its namer plays first
    WILD = "wild"  # W1: the next seat plays
    DRAW4 = "wd4"  # W2: the next seat draws 4 or challenges


class StackCard(StrEnum):
    """What put a PendingDraw on the stack (H1, H2)."""

    DRAW2 = "draw2"
    DRAW4 = "draw4"
    PAIR = "pair"  # seed 003: a same-colour pair of Draw Twos covering a Draw Four


@dataclass(frozen=True, slots=True)
class PendingDraw:
    """A draw owed by `victim`; `State.pending` stacks them (H1, H2)."""

    count: int
    rule: str
    source: int
    victim: int
    card: StackCard = StackCard.DRAW2

    def to(self, victim: int) -> PendingDraw:
        return PendingDraw(self.count, self.rule, self.source, victim, self.card)

    def as_dict(self) -> dict[str, Any]:
        return {"seat": self.victim, "count": self.count, "rule": self.rule, "from": self.source, "card": self.card.value}


@dataclass(frozen=True, slots=True)
class DeferredPenalty:
    """A penalty that waits: for a colour being named, or for a challenge's verdict."""

    seat: int
    count: int
    rule: str
    reason: str


class WindowKind(StrEnum):
    SILENT2 = "silent2"  # H10
    SLAP9 = "slap9"  # H11


@dataclass(frozen=True, slots=True)
class SlapPress:
    seat: int
    at: float


@dataclass(frozen=True, slots=True)
class Window:
    """A timed seat-button window (H10 Silent 2, H11 Slap 9) opened by `seat`'s card at
    `at` (the input's clock; None when the play carried no time)."""

    kind: WindowKind
    seat: int
    at: float | None
    presses: tuple[SlapPress, ...] = ()

    @property
    def rule(self) -> str:
        return "H10" if self.kind is WindowKind.SILENT2 else "H11"


@dataclass(frozen=True, slots=True)
class JumpClaim:
    """H5: `seat` held its button (at `at`, the input's clock) to say the next card that lands
    is its jump-in."""

    seat: int
    at: float | None


@dataclass(frozen=True, slots=True)
class ClaimablePlay:
    """H5: the last card seen landing on its twin, given to the turn seat `seat` (inferred):
    another seat's hold soon after says that seat jumped in. `entry`: its log position."""

    entry: int
    at: float | None
    seat: int
    cards: tuple[str, ...]


class ScoreStatus(StrEnum):
    """Where this round's score stands."""

    OPEN = "open"  # not scored (yet)
    HELD = "held"  # revealed hands disagree with the counts: the host decides (State.held)
    SCORED = "scored"
    VOID = "void"  # the host ended the round without a winner


@dataclass(frozen=True, slots=True)
class HeldCount:
    """A revealed hand whose size disagrees with the tracked count (holds the score)."""

    seat: int
    tracked: int
    revealed: int


class SpinOutcome(StrEnum):
    """H13: the wheel's outcomes that seed 003 names."""

    DRAW_UNTIL_COLOUR = "draw-until-colour"  # draw until a card of the wheel's colour comes
    DOWN_TO_TWO = "down-to-two"  # lay down every card but two at once
    TRADE_HANDS = "trade-hands"  # every hand passes on in the direction of play


@dataclass(frozen=True, slots=True)
class SpinState:
    """H13: `seat` spins (outcome None) or carries out `outcome` (`colour` for the draw)."""

    seat: int
    outcome: SpinOutcome | None = None
    colour: int = -1


_SPIN_RANKS = {"skip": SKIP, "reverse": REVERSE}


class Rules:
    """The rules configuration compiled to plain attributes for the hot path."""

    __slots__ = (
        "config", "n", "hand_size", "illegal_penalty", "advice_penalty", "drawn_number_only",
        "wd4_no_playable", "challenge_extra", "missed", "false_call", "wrong_catch", "strict",
        "points", "target", "dealer_by_draw", "first_wild_redraw", "first_reverse",
        "flip_until_number", "first_is_dealer", "match_config", "last_card_draw", "continuous", "team_mode",
        "stack2", "stack4", "pair_on4", "no_challenge_on2", "deflect", "follow", "jump", "jump_own", "multi",
        "until", "until_number", "zero", "zero_current", "seven", "red0", "silent2", "slap9",
        "slap_limit", "slap_penalty", "attack", "attack_max", "spin", "spin_ranks", "number_hooks", "jump_claim_s",
        "stacking", "empty_match", "plain",
    )  # fmt: skip

    def __init__(self, config: RulesConfig):
        self.config = config
        self.n = config.players
        self.hand_size = config.setup.hand_size
        self.illegal_penalty = config.play.illegal_play_penalty
        self.advice_penalty = config.play.advice_penalty
        self.drawn_number_only = config.play.play_drawn == "number-only"
        self.wd4_no_playable = config.play.wild_draw4_legal == "no-playable-card"
        self.challenge_extra = config.play.challenge_extra
        self.missed = config.uno.missed_penalty
        self.false_call = config.uno.false_call_penalty
        self.wrong_catch = config.uno.wrong_catch_penalty
        self.strict = config.uno.strict
        self.points = point_table(config.scoring.points)
        self.dealer_by_draw = config.setup.dealer == "draw"
        self.first_wild_redraw = config.setup.first_wild == "redraw"
        self.first_reverse = config.setup.first_reverse
        self.flip_until_number = config.setup.flip_until_number
        self.first_is_dealer = config.setup.first_player == "dealer"
        self.match_config = config.match_config()
        self.empty_match = None  # table.matches.Match before the first round, built once
        self.target = self.match_config.effective_target
        self.last_card_draw = config.scoring.last_card_action == "draw-one"
        self.continuous = config.scoring.format == "continuous"
        self.team_mode = config.teams.mode
        h = config.house
        self.stack2, self.stack4, self.pair_on4 = h.stack_draw2, h.stack_draw4, h.draw2_pair_on_draw4
        self.stacking = h.stack_draw2 or h.stack_draw4
        self.no_challenge_on2 = h.no_challenge_on_draw2
        self.deflect, self.follow = h.deflect, h.follow_stack_colour
        self.jump = h.jump_in if h.jump_in != "off" else ""
        self.jump_own = h.jump_in_own
        self.jump_claim_s = h.jump_in_claim_s
        self.multi = h.multi_play if h.multi_play != "off" else ""
        self.until = h.draw_until_playable != "off"
        self.until_number = h.draw_until_playable == "playable-number"
        self.zero = h.seven_o
        self.zero_current = h.seven_o_zero == "current-colour"
        self.seven = h.seven_o and h.seven_o_seven
        self.red0 = h.red0_draw10
        self.silent2, self.slap9 = h.silent2, h.slap9
        self.slap_limit, self.slap_penalty = h.slap9_limit, h.slap_penalty
        self.attack, self.attack_max = h.attack_mode, h.attack_max
        self.spin = h.spin
        # H13: the ranks that carry the spin (0-9, Skip, Reverse); empty when the rule is off
        self.spin_ranks = frozenset(
            _SPIN_RANKS[c] if c in _SPIN_RANKS else int(c) for c in h.spin_ranks()
        ) if h.spin else frozenset()  # fmt: skip
        # Number cards that do something beyond changing the colour (checked once per play).
        self.number_hooks = self.zero or self.red0 or self.silent2 or self.slap9
        # No house rule, no R7, no seat leaving the rotation: a play that empties the hand
        # ends the round at once (no R5/R7 check) and no card has a house effect.
        self.plain = (
            h == HouseRules() and not self.last_card_draw
            and config.scoring.format not in ("continuous", "elimination")
        )  # fmt: skip


class State:
    """Everything the referee knows. Treat as immutable outside the referee (use ``step``)."""

    __slots__ = (
        "rules", "phase", "round", "dealer", "dealer_seats", "turn", "direction", "colour",
        "top", "discard", "draw_count", "hands", "called", "exposed", "caught", "armed",
        "colour_seat", "after_colour", "prev_colour", "prev_top", "prev_lock", "pending",
        "challenger", "challenged", "deferred", "drawn", "winner", "scores", "revealed",
        "verdicts", "windows", "turns", "seq", "history", "last_winner", "out", "live",
        "finish", "match", "lock", "last_player", "swap_seat", "exposed_seq", "score_status",
        "held", "seating", "team_draws", "spin", "spin_due", "claim", "claimable",
    )  # fmt: skip

    def __init__(self, rules: Rules):
        n = rules.n
        self.rules = rules
        self.phase: PhaseName = IDLE
        self.round = 0
        self.dealer: int | None = None
        self.dealer_seats: tuple[int, ...] = ()
        self.turn = 0
        self.direction = 1
        self.colour = -1
        self.top = -1
        self.discard: list[int] = []
        self.draw_count = DECK_SIZE
        self.hands = [0] * n
        # UNO bitmasks (bit s = seat s): called with one card; exposed = one card, not called,
        # catchable until the next player begins (U2); caught in this window; armed = pressed
        # while about to play the second-to-last card.
        self.called = self.exposed = self.caught = self.armed = 0
        self.colour_seat = -1
        self.after_colour = AfterColour.NONE
        # The position the last card was played in (W2's challenge judges it there).
        self.prev_colour = -1
        self.prev_top = -1
        self.prev_lock = False
        self.pending: tuple[PendingDraw, ...] = ()
        self.challenger = self.challenged = -1
        self.deferred: tuple[DeferredPenalty, ...] = ()
        self.drawn = NO_CARD
        self.winner = -1
        self.scores = [0] * n
        self.revealed: dict[int, tuple[int, ...]] = {}
        self.verdicts: tuple[Event, ...] = ()
        self.windows: tuple[Window, ...] = ()  # H10 / H11 timed seat-button windows
        self.turns = 0
        self.seq = 0
        self.history: tuple | None = None  # cons list (input, older) of every stepped input
        self.last_winner = -1
        # Seats out of the rotation (bit s): eliminated from the match (R6) or, in continuous
        # mode (R5), already out this round. `live` counts the others.
        self.out = 0
        self.live = n
        self.finish: tuple[int, ...] = ()  # R5: seats in the order they went out this round
        self.match = None  # table.matches.Match after the first scored round (never mutated)
        self.lock = False  # H4: the next play must follow the colour (no symbol match)
        self.last_player = -1  # who placed the top card (H5: own jump-in)
        self.swap_seat = -1  # H8: the seat naming whom to swap hands with
        self.exposed_seq = -1  # U3: the input that exposed a seat (a call right after is not late)
        self.score_status = ScoreStatus.OPEN
        self.held: tuple[HeldCount, ...] = ()  # count mismatches waiting for the host
        # T2/T3: seating[seat] is the player (match entrant) sitting there; players move
        # between rounds, seats (buttons, turn order) do not. Identity otherwise.
        self.seating: tuple[int, ...] = tuple(range(n))
        self.team_draws: tuple[dict[int, str], ...] = ()  # T3: the draws so far
        self.spin: SpinState | None = None  # H13: the spin under way
        self.spin_due = False  # H13: the next turn to begin is a spin
        self.claim: JumpClaim | None = None  # H5: a hold waiting for the next card
        self.claimable: ClaimablePlay | None = None  # H5: a twin just given to the turn seat

    def copy(self) -> State:
        new = State.__new__(State)
        for name in State.__slots__:
            setattr(new, name, getattr(self, name))
        new.discard = self.discard[:]
        new.hands = self.hands[:]
        new.scores = self.scores[:]
        new.revealed = dict(self.revealed)
        return new

    def fingerprint(self) -> tuple:
        """Every game fact as a comparable tuple (not the log position or history: an input
        that changes nothing leaves an equal state)."""
        return tuple(
            (v.results() if v is not None else None) if k == "match" else v
            for k in State.__slots__ if k not in ("rules", "history", "seq", "exposed_seq")
            for v in (getattr(self, k),)
        )  # fmt: skip

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.fingerprint() == other.fingerprint()

    def inputs(self) -> list[Input]:
        """Every input stepped so far, oldest first (the log, in memory)."""
        out = []
        node = self.history
        while node is not None:
            out.append(node[0])
            node = node[1]
        out.reverse()
        return out


def new_state(config: RulesConfig) -> State:
    return State(Rules(config))
