"""The referee: a pure state machine ``step(state, input) -> (new_state, events)``.

No clock, camera, GPIO or randomness in here: times come inside inputs (gesture ``at``) and
shuffles happen outside (the simulator, the real table). The referee never sees hands: it keeps
hand COUNTS (deal, +draws, -plays), the discard pile (it sees every card placed), the draw
pile's size, and the UNO/challenge/colour obligations, and checks every play against sections
S, P, A, W and U of RULES.md.

Hot path: ``State`` is a plain slotted class with ints, lists and bitmasks. ``advance(state,
input)`` mutates a state in place (the simulator and replay use it); ``step`` copies first, so
it is pure. Validation of JSON happens at the boundary (``table.inputs.parse_input``);
``check_input`` rejects structurally bad inputs (seat out of range, unknown card) by raising
InputError before anything changes. Everything else a table can throw at the referee -- a card
out of turn, an illegal card, a press at the wrong moment -- becomes an event
(``illegal_play``, ``input_rejected``, ``notice``), never an exception.

Seat-button gestures (the hardware layer reports only raw press / double / hold; the meaning
comes from the game state, see ``interpret_gesture``):

=========  ===============================================  ==================================
gesture    state                                            meaning
=========  ===============================================  ==================================
press      the seat was told to draw 4 (challenge pending)  challenge the Wild Draw Four (W3)
press      otherwise                                        call UNO (U1; U3 late; U4 if false)
double     any time in a round                              catch a player who missed UNO (U2,
                                                            U5 if wrong)
hold       the seat was told to draw 4                      accept the draw, no challenge
hold       the seat's turn                                  pass (after drawing, P6)
hold       otherwise                                        rejected: not that seat's turn
=========  ===============================================  ==================================

House rules (section H, all off unless the rules turn them on; compiled into ``Rules`` so a
rule that is off costs one attribute test at most):

- H1/H2 stacking: ``State.pending`` is a stack of ``PendingDraw``; while it is non-empty the
  seat it points at adds a draw card (``_stack_reason`` says what may go on what, H2's seed
  003 pair included) or takes it all with a draw / pass / hold. H3 deflects, H4 locks the
  colour after the stack is drawn (``State.lock``). W4: only the first Wild Draw Four of a
  chain is offered for challenge; guilty = the chain is dissolved, innocent = the challenger
  draws the whole count plus ``play.challenge_extra``.
- H5 jump-in (``_may_jump_in``) needs the seat named in the play; H6 multi-play
  (``_multi_play_ok``) lists the cards bottom to top, the top card names the colour.
- H7 keeps the turn in ``DRAWN`` while the drawn card does not end the drawing.
- H8 moves hand counts (``HandsMoved``); a 7 waits in ``SWAP`` for a ``SwapHands`` input.
- H9 red 0 = Draw Ten; H12 ``Attack`` carries its own roll, so the referee stays pure.
- H10 / H11 are timed seat-button windows in ``State.windows``: a 2 opens Silent 2 (the first
  seat-button press is a sound and draws), a 9 opens Slap 9 (every seat in the game presses;
  the slowest by its ``at`` time draws, or whoever has not pressed when a later input's time
  passes ``house.slap9_limit`` or the next card is played). ``window_opened`` /
  ``window_closed`` carry ``buzzer`` = start / end for the hardware.

While a window is open, ``press`` means the window's gesture (slap first, then the sound of
Silent 2), except for the seat told to draw 4, whose press is still the challenge.

Scoring (section R, T1): at round end the remaining hands are revealed; the round is scored
through a ``table.matches.Match`` built from ``RulesConfig.match_config()``. A revealed hand
whose size disagrees with the tracked count holds the score (``score_held``) until the seat
reveals again or the host sends ``confirm_score``. R5 continuous rounds and R6 eliminations
take seats out of the rotation (``State.out``). The host's ``end_round`` ends a round with a
winner (scored from the reveals) or without one (void, not scored).
"""

from __future__ import annotations

from typing import Any

from table.cards import (
    CARD_IDS,
    COLOUR_OF_NAME,
    COLOURED_RANKS,
    COLOURS,
    DRAW2,
    FACE_COLOUR,
    FACE_OF,
    FACE_RANK,
    FACE_TEXT,
    REVERSE,
    SKIP,
    WILD,
    WILD_DRAW4,
    point_table,
)
from table.events import (
    CardsDealt,
    CardsDrawn,
    ChallengeOffered,
    ChallengeResolved,
    ColourNamed,
    ColourNeeded,
    DealerChosen,
    DealerDrawNeeded,
    DeckReshuffled,
    DirectionChanged,
    Event,
    HandCountCorrected,
    HandsMoved,
    IllegalPlay,
    InputRejected,
    LauncherFired,
    MatchEnded,
    Notice,
    PenaltyOrdered,
    PlayAccepted,
    RevealNeeded,
    RoundEnded,
    RoundScored,
    RoundStarted,
    RoundVoided,
    ScoreHeld,
    SeatingSet,
    SeatOut,
    StarterAccepted,
    StarterReturned,
    StateRebuilt,
    SwapNeeded,
    TurnPassed,
    TurnSkipped,
    TurnStarted,
    UnoCalled,
    UnoCaught,
    UnoMissed,
    WindowClosed,
    WindowOpened,
)
from table.inputs import (
    Amend,
    Attack,
    CallUno,
    Catch,
    Challenge,
    ConfirmScore,
    CorrectCount,
    DealerDraw,
    Draw,
    EndRound,
    Flip,
    HostPenalty,
    Input,
    InputError,
    NameColour,
    Pass,
    Play,
    Reveal,
    SeatGesture,
    StartRound,
    SwapHands,
    Tick,
    Undo,
    parse_input,
)
from table.rules import HouseRules, RulesConfig

DECK_SIZE = 108

# Phases.
IDLE = "idle"  # no round yet (or between rounds: see ROUND_OVER)
DEALER_DRAW = "dealer-draw"  # S2: seats turn up a card each to choose the dealer
FLIP = "flip"  # S3/S4: waiting for the starter card
PLAY = "play"  # the turn seat plays, draws or passes
DRAWN = "drawn"  # the turn seat drew (P6): may play the drawn card or pass
COLOUR = "colour"  # a Wild was played: its player names the colour
SWAP = "swap"  # H8: a 7 was played: its player names the seat to swap hands with
CHALLENGE = "challenge"  # W3: the seat told to draw 4 challenges or accepts
REVEAL = "reveal"  # W3: the challenged seat lays its hand face up
ROUND_OVER = "round-over"  # a seat went out; remaining hands are revealed for scoring
MATCH_OVER = "match-over"
IN_ROUND = frozenset({PLAY, DRAWN, COLOUR, CHALLENGE, REVEAL, SWAP})

NO_CARD = -1  # State.drawn: nothing drawn this turn
UNKNOWN_CARD = -2  # State.drawn: drew, face unknown (a real table)


class Rules:
    """The rules configuration compiled to plain attributes for the hot path."""

    __slots__ = (
        "config", "n", "hand_size", "illegal_penalty", "advice_penalty", "drawn_number_only",
        "wd4_no_playable", "challenge_extra", "missed", "false_call", "wrong_catch", "strict",
        "points", "target", "dealer_by_draw", "first_wild_redraw", "first_reverse",
        "flip_until_number", "first_is_dealer", "match_config", "last_card_draw", "continuous", "team_mode",
        "stack2", "stack4", "pair_on4", "deflect", "follow", "jump", "jump_own", "multi",
        "until", "until_number", "zero", "zero_current", "seven", "red0", "silent2", "slap9",
        "slap_limit", "slap_penalty", "attack", "attack_max", "number_hooks", "stacking", "empty_match", "plain",
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
        self.target = config.scoring.target
        self.dealer_by_draw = config.setup.dealer == "draw"
        self.first_wild_redraw = config.setup.first_wild == "redraw"
        self.first_reverse = config.setup.first_reverse
        self.flip_until_number = config.setup.flip_until_number
        self.first_is_dealer = config.setup.first_player == "dealer"
        self.match_config = config.match_config()
        self.empty_match = None
        self.target = self.match_config.effective_target
        self.last_card_draw = config.scoring.last_card_action == "draw-one"
        self.continuous = config.scoring.format == "continuous"
        self.team_mode = config.teams.mode
        h = config.house
        self.stack2, self.stack4, self.pair_on4 = h.stack_draw2, h.stack_draw4, h.draw2_pair_on_draw4
        self.stacking = h.stack_draw2 or h.stack_draw4
        self.deflect, self.follow = h.deflect, h.follow_stack_colour
        self.jump = h.jump_in if h.jump_in != "off" else ""
        self.jump_own = h.jump_in_own
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
        # Number cards that do something beyond changing the colour (checked once per play).
        self.number_hooks = self.zero or self.red0 or self.silent2 or self.slap9
        # No house rule, no R7, no seat leaving the rotation: plays take the lean path.
        self.plain = (
            h == HouseRules() and not self.last_card_draw
            and config.scoring.format not in ("continuous", "elimination")
        )  # fmt: skip


class PendingDraw:
    """A draw owed by `victim`; `State.pending` stacks them (H1, H2). `card` is what put it
    there: 'draw2', 'draw4', or 'pair' (seed 003: a same-colour pair of Draw Twos)."""

    __slots__ = ("count", "rule", "source", "victim", "card")

    def __init__(self, count: int, rule: str, source: int, victim: int, card: str = "draw2"):
        self.count, self.rule, self.source, self.victim, self.card = count, rule, source, victim, card

    def as_dict(self) -> dict[str, Any]:
        return {"seat": self.victim, "count": self.count, "rule": self.rule, "from": self.source, "card": self.card}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PendingDraw) and self.as_dict() == other.as_dict()


class State:
    """Everything the referee knows. Treat as immutable outside this module (use ``step``)."""

    __slots__ = (
        "rules", "phase", "round", "dealer", "dealer_seats", "turn", "direction", "colour",
        "top", "discard", "draw_count", "hands", "called", "exposed", "caught", "armed",
        "colour_seat", "after_colour", "prev_colour", "prev_top", "prev_lock", "pending", "challenger",
        "challenged", "deferred", "drawn", "winner", "scores", "revealed", "verdicts",
        "windows", "turns", "seq", "history", "last_winner", "out", "live", "finish", "match",
        "lock", "last_player", "swap_seat", "exposed_seq", "held", "seating", "team_draws",
    )  # fmt: skip
    _LISTS = ("discard", "hands", "pending", "deferred", "scores")

    def __init__(self, rules: Rules):
        n = rules.n
        self.rules = rules
        self.phase = IDLE
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
        self.after_colour = ""
        self.prev_colour = -1
        self.prev_top = -1
        self.prev_lock = False
        self.pending: list[PendingDraw] = []
        self.challenger = self.challenged = -1
        self.deferred: list[tuple[int, int, str, str]] = []
        self.drawn = NO_CARD
        self.winner = -1
        self.scores = [0] * n
        self.revealed: dict[int, tuple[int, ...]] = {}
        self.verdicts: tuple[Event, ...] = ()
        self.windows: tuple = ()  # issue 3: timed seat-button windows (Silent 2, Slap 9)
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
        self.held: tuple = ()  # count mismatches waiting for the host before scoring
        # T2/T3: seating[seat] is the player (match entrant) sitting there; players move
        # between rounds, seats (buttons, turn order) do not. Identity otherwise.
        self.seating: tuple[int, ...] = tuple(range(n))
        self.team_draws: tuple[dict[int, str], ...] = ()  # T3: the draws so far

    def copy(self) -> State:
        new = State.__new__(State)
        for name in State.__slots__:
            setattr(new, name, getattr(self, name))
        new.discard = self.discard[:]
        new.hands = self.hands[:]
        new.pending = self.pending[:]
        new.deferred = self.deferred[:]
        new.scores = self.scores[:]
        new.revealed = dict(self.revealed)
        return new

    def fingerprint(self) -> tuple:
        """Every game fact as a comparable tuple (not the log position or history: an input
        that changes nothing leaves an equal state)."""
        return tuple(
            [p.as_dict() for p in v] if k == "pending" else
            [e.to_dict() for e in v] if k == "verdicts" else
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

    def to_json(self) -> dict[str, Any]:
        return snapshot(self)


# --------------------------------------------------------------------------- public helpers


def new_state(config: RulesConfig) -> State:
    return State(Rules(config))


def card_text(face: int) -> str:
    return FACE_TEXT[face]


def current_text(state: State) -> str:
    """What a card must match, in words: 'blue 5', or 'green (named after a wild)'."""
    if state.top >= WILD:
        colour = COLOURS[state.colour] if state.colour >= 0 else "no colour yet"
        return f"{colour} (named after {FACE_TEXT[state.top]})"
    return FACE_TEXT[state.top]


def is_playable(state: State, face: int) -> bool:
    """P2/P3/W1: the card matches the current colour, or the top card's number or symbol;
    wild cards always can be placed (Wild Draw Four legality is settled by a challenge)."""
    if face >= WILD:
        return True
    if FACE_COLOUR[face] == state.colour:
        return True
    top = state.top
    return top < WILD and FACE_RANK[face] == FACE_RANK[top]


def wild_draw4_allowed(state: State, hand: list[int] | tuple[int, ...]) -> bool:
    """W2 with full information: may a player holding `hand` (including the WD4) play it?"""
    if state.rules.wd4_no_playable:
        return not any(f != WILD_DRAW4 and _may_play_now(state, f) for f in hand)
    colour = state.colour
    return not any(FACE_COLOUR[f] == colour for f in hand)


def _may_play_now(s: State, face: int) -> bool:
    """W2 (seed 002): could `face` be played in this position instead of a Wild Draw Four?
    Facing a stack only a card that may answer it (H1-H3); under H4 only the colour."""
    if s.pending:
        return _stack_reason(s, [face]) is None
    if s.lock and face < WILD:
        return FACE_COLOUR[face] == s.colour
    return is_playable(s, face)


def next_seat(state: State, seat: int, steps: int = 1) -> int:
    out = state.out
    if not out:
        return (seat + state.direction * steps) % state.rules.n
    return _step_from(state, seat, state.direction, steps)


def _step_from(state: State, seat: int, direction: int, steps: int = 1) -> int:
    """The seat `steps` places on in `direction`, skipping seats out of the rotation (R5, R6)."""
    n, out = state.rules.n, state.out
    for _ in range(steps):
        seat = (seat + direction) % n
        guard = n
        while out >> seat & 1 and guard:
            seat = (seat + direction) % n
            guard -= 1
    return seat


def interpret_gesture(state: State, g: SeatGesture) -> Input | str:
    """The meaning of a raw seat-button gesture in this state (see the module docstring):
    an Input to apply, or a one-line reason why the gesture means nothing now."""
    seat = g.seat
    if state.phase not in IN_ROUND:
        return f"seat {seat} {g.gesture}: no round in progress"
    told_to_draw4 = state.phase == CHALLENGE and seat == state.challenger
    if g.gesture == "press":
        if told_to_draw4:
            return Challenge(seat=seat, challenge=True)
        if state.windows:  # H11 slap first (slapping is silent), then H10 silence
            for w in state.windows:
                if w[0] == "slap9" and all(p[0] != seat for p in w[3]):
                    return _WindowPress(seat, g.at, "slap9")
            for w in state.windows:
                if w[0] == "silent2":
                    return _WindowPress(seat, g.at, "silent2")
        return CallUno(seat=seat, at=g.at)
    if g.gesture == "double":
        return Catch(seat=seat, at=g.at)
    # hold
    if told_to_draw4:
        return Challenge(seat=seat, challenge=False)
    if state.phase in (PLAY, DRAWN) and seat == state.turn:
        return Pass(seat=seat)
    return f"seat {seat} held (pass) but it is seat {state.turn}'s turn"


def check_input(state: State, inp: Input) -> None:
    """Raise InputError for an input that cannot apply to any game with these rules (seat out
    of range, unknown card, undo of a log entry that does not exist). Nothing changes."""
    n = state.rules.n

    def seat_ok(name: str, seat: int | None) -> None:
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < n):
            raise InputError(f"input '{inp.kind}': {name}={seat!r} is not a seat (this table has seats 0-{n - 1})")

    def cards_ok(cards) -> None:
        for c in cards:
            if c not in FACE_OF:
                raise InputError(f"input '{inp.kind}': unknown card {c!r}")

    if not isinstance(inp, Input):
        raise InputError(f"not an input: {inp!r}")
    for name in ("seat", "target", "dealer", "winner"):
        if hasattr(inp, name) and not isinstance(inp, (Amend, Undo)):
            seat_ok(name, getattr(inp, name))
    if isinstance(inp, (Play, Reveal)):
        cards_ok(inp.cards)
        if isinstance(inp, Play) and not inp.cards:
            raise InputError("input 'play': cards: at least one card is needed")
    elif isinstance(inp, Draw) and inp.cards is not None:
        cards_ok(inp.cards)
        if len(inp.cards) != inp.count:
            raise InputError(f"input 'draw': {len(inp.cards)} cards named for a draw of {inp.count}")
    elif isinstance(inp, Flip):
        cards_ok((inp.card,))
    elif isinstance(inp, DealerDraw):
        for seat, card in inp.cards.items():
            seat_ok("cards", seat)
            cards_ok((card,))
    elif isinstance(inp, NameColour):
        if inp.colour not in COLOUR_OF_NAME:
            raise InputError(f"input 'colour': {inp.colour!r} is not red, yellow, green or blue")
    elif isinstance(inp, SeatGesture):
        if inp.gesture not in ("press", "double", "hold"):
            raise InputError(f"input 'gesture': {inp.gesture!r} is not press, double or hold")
    elif isinstance(inp, (Undo, Amend)):
        target = inp.target
        if target is not None and not (1 <= target <= state.seq):
            raise InputError(f"input '{inp.kind}': log entry {target} does not exist (entries 1-{state.seq})")
        if target is not None:
            old = state.inputs()[target - 1]
            if isinstance(old, (Undo, Amend)):
                raise InputError(f"input '{inp.kind}': entry {target} is itself a correction")
        if isinstance(inp, Amend):
            check_input(state, parse_input(inp.input))


def step(state: State, inp: Input) -> tuple[State, list[Event]]:
    """The pure transition. Raises InputError only for structurally bad inputs."""
    check_input(state, inp)
    if isinstance(inp, (Undo, Amend)):
        return _rebuild(state, inp)
    new = state.copy()
    events: list[Event] = []
    _apply(new, inp, events)
    new.seq += 1
    new.history = (inp, new.history)
    return new, events


def advance(state: State, inp: Input) -> list[Event]:
    """``step`` in place, for the simulator and replay (no copy; same result). Undo and Amend
    rebuild the state and copy the rebuilt facts into `state`."""
    handler = _HANDLERS.get(type(inp))
    if handler is None:
        if isinstance(inp, (Undo, Amend)):
            check_input(state, inp)
            new, events = _rebuild(state, inp)
            for name in State.__slots__:
                setattr(state, name, getattr(new, name))
            return events
        handler = _apply
    events: list[Event] = []
    handler(state, inp, events)
    state.seq += 1
    state.history = (inp, state.history)
    return events


def effective_inputs(inputs: list[Input]) -> list[Input]:
    """The game inputs in force after applying every Undo and Amend, in log order."""
    entries: list[list[Any]] = []  # [input, alive]
    for inp in inputs:
        if isinstance(inp, Undo):
            if inp.target is None:
                for entry in reversed(entries):
                    if entry[1] and not isinstance(entry[0], (Undo, Amend)):
                        entry[1] = False
                        break
            elif inp.target <= len(entries):
                entries[inp.target - 1][1] = False
            entries.append([inp, False])
        elif isinstance(inp, Amend):
            if inp.target <= len(entries):
                entries[inp.target - 1][0] = parse_input(inp.input)
            entries.append([inp, False])
        else:
            entries.append([inp, True])
    return [e[0] for e in entries if e[1]]


def replay(config: RulesConfig | Rules, inputs: list[Input]) -> State:
    """Rebuild the state from a log of inputs (corrections included)."""
    rules = config if isinstance(config, Rules) else Rules(config)
    state = State(rules)
    sink: list[Event] = []
    for inp in effective_inputs(inputs):
        _apply(state, inp, sink)
        state.seq += 1
        sink.clear()
    state.seq = len(inputs)
    history = None
    for inp in inputs:
        history = (inp, history)
    state.history = history
    return state


def _rebuild(state: State, inp: Undo | Amend) -> tuple[State, list[Event]]:
    inputs = state.inputs()
    if isinstance(inp, Undo) and inp.target is None:
        live = effective_inputs(inputs)
        if not live:
            new = state.copy()
            new.seq += 1
            new.history = (inp, new.history)
            return new, [InputRejected("undo", None, "nothing to undo")]
    new = replay(state.rules, inputs + [inp])
    target = inp.target if inp.target is not None else _last_live(inputs)
    return new, [StateRebuilt("undo" if isinstance(inp, Undo) else "amend", target)]


def _last_live(inputs: list[Input]) -> int:
    alive = [True] * len(inputs)
    for i, inp in enumerate(inputs):
        if isinstance(inp, (Undo, Amend)):
            alive[i] = False
            if isinstance(inp, Undo):
                if inp.target is None:
                    for j in range(i - 1, -1, -1):
                        if alive[j]:
                            alive[j] = False
                            break
                else:
                    alive[inp.target - 1] = False
    for j in range(len(inputs) - 1, -1, -1):
        if alive[j]:
            return j + 1
    return 0


# --------------------------------------------------------------------------- internals


def _apply(s: State, inp: Input, ev: list[Event]) -> None:
    handler = _HANDLERS.get(type(inp))
    if handler is None:
        ev.append(InputRejected(inp.kind, None, f"the referee does not handle '{inp.kind}'"))
        return
    handler(s, inp, ev)


def _reject(s: State, inp: Input, seat: int | None, reason: str, ev: list[Event]) -> None:
    ev.append(InputRejected(inp.kind, seat, reason))


def _draw(s: State, seat: int, count: int, rule: str, ev: list[Event], inferred: bool = True,
          cards: tuple[str, ...] | None = None) -> int:  # fmt: skip
    got = 0
    while got < count:
        if s.draw_count == 0:
            k = len(s.discard) - 1
            if k <= 0:
                break  # every other card is in a hand: the draw falls short, as at a table
            s.draw_count = k
            del s.discard[:-1]
            ev.append(DeckReshuffled(k))
        take = count - got
        if take > s.draw_count:
            take = s.draw_count
        s.draw_count -= take
        got += take
    hands = s.hands
    hands[seat] += got
    if hands[seat] > 1:
        bit = 1 << seat
        if (s.called | s.exposed | s.armed) & bit:
            s.called &= ~bit
            s.exposed &= ~bit
            s.armed &= ~bit
    ev.append(CardsDrawn(seat, got, rule, hands[seat], cards, inferred))
    return got


def _penalty(s: State, seat: int, count: int, rule: str, reason: str, ev: list[Event],
             quiet: bool = False) -> None:  # fmt: skip
    if count <= 0:
        return
    if s.out >> seat & 1:
        # R5: a seat that has finished holds no hand to draw into; drawing would put it back
        # into a round it has left (and its place is already taken).
        return ev.append(Notice(seat, f"seat {seat} has finished this round: no penalty draw ({rule}: {reason})"))
    phase = s.phase
    if phase == COLOUR:
        # RULES.md edge case: the colour choice completes first, then the penalty applies.
        s.deferred.append((seat, count, rule, reason))
        if not quiet:
            ev.append(Notice(seat, f"penalty for seat {seat} ({rule}) waits until seat {s.colour_seat} names the colour"))
        return
    if seat == s.challenged and (phase == CHALLENGE or phase == REVEAL):
        # The challenge judges the hand as it was when the Wild Draw Four was played: cards
        # drawn before the reveal would be mixed into it, so they wait for the verdict.
        s.deferred.append((seat, count, rule, reason))
        if not quiet:
            ev.append(Notice(seat, f"penalty for seat {seat} ({rule}) waits until the challenge is settled"))
        return
    ev.append(PenaltyOrdered(seat, count, rule, reason))
    _draw(s, seat, count, rule, ev)


def _flush_deferred(s: State, ev: list[Event]) -> None:
    deferred, s.deferred = s.deferred, []
    for d_seat, count, rule, reason in deferred:
        _penalty(s, d_seat, count, rule, reason, ev, quiet=True)


def _begin_turn(s: State, seat: int, ev: list[Event]) -> None:
    s.turn = seat
    s.phase = PLAY
    s.drawn = NO_CARD
    s.turns += 1
    ev.append(TurnStarted(seat, s.direction))


def _close_uno_window(s: State, ev: list[Event], beginner: int) -> None:
    """U2: the next player began a turn: whoever is still exposed can no longer be caught
    (U6 strict: the table catches them now). A seat that plays again itself (two players,
    after a Skip) keeps its own window open: it may still call, be caught, or go out."""
    keep = 1 << beginner
    exposed = s.exposed & ~keep
    s.exposed &= keep
    s.caught &= keep
    if not exposed:
        return
    for seat in range(s.rules.n):
        if exposed >> seat & 1:
            if s.rules.strict:
                ev.append(UnoCaught(seat, None, "U6"))
                _penalty(s, seat, s.rules.missed, "U6", "did not call UNO (strict mode)", ev)
            else:
                ev.append(UnoMissed(seat))


# ----- round setup (S)


def _start_round(s: State, inp: StartRound, ev: list[Event]) -> None:
    r = s.rules
    if s.phase == MATCH_OVER:
        return _reject(s, inp, None, "the match is over", ev)
    if s.phase not in (IDLE, ROUND_OVER):
        return _reject(s, inp, None, f"round {s.round} is still in progress ({s.phase})", ev)
    dealer = inp.dealer
    reason = "named by the host"
    if dealer is None and s.held == ("void",) and s.dealer is not None:
        dealer, reason = s.dealer, "the voided round is dealt again by its dealer"
    elif dealer is None and s.last_winner >= 0:
        dealer, reason = s.last_winner, "winner of the last round deals"
    if dealer is None and not r.dealer_by_draw:
        return _reject(s, inp, None, "setup.dealer is 'host': name the dealer to start the round", ev)
    n = r.n
    s.round += 1
    s.discard = []
    s.draw_count = DECK_SIZE
    s.hands = [0] * n
    s.called = s.exposed = s.caught = s.armed = 0
    s.pending = []
    s.deferred = []
    s.revealed = {}
    s.winner = -1
    s.direction = 1
    s.colour = s.top = -1
    s.drawn = NO_CARD
    s.verdicts = s.windows = s.finish = s.held = ()
    s.lock = False
    s.last_player = s.swap_seat = -1
    s.out = 0
    s.live = n
    if s.match is not None and s.match.eliminated:
        # R6: eliminated seats stay out of the rotation (and of the deal) for the match.
        for seat in s.match.eliminated:
            s.out |= 1 << seat
        s.live = n - len(s.match.eliminated)
        if dealer is not None and s.out >> dealer & 1:
            dealer = _step_from(s, dealer, 1)
    if r.team_mode == "rotating":
        dealer = _rotate_seating(s, dealer, ev)
    elif r.team_mode == "by-draw" and s.match is None and dealer is not None:
        dealer = None  # T3: the teams are drawn first; the highest draw deals
    ev.append(RoundStarted(s.round, dealer))
    if dealer is None:
        s.phase = DEALER_DRAW
        s.dealer_seats = tuple(x for x in range(n) if not s.out >> x & 1)
        if r.team_mode == "by-draw" and s.match is None:
            s.team_draws = ()
            ev.append(DealerDrawNeeded(s.dealer_seats, "teams by draw: highest with lowest, the two middle together; highest deals (T3)"))
        else:
            ev.append(DealerDrawNeeded(s.dealer_seats, "highest number deals (S2)"))
        return
    s.dealer = dealer
    ev.append(DealerChosen(dealer, "S2", reason))
    _deal(s, ev)


def _dealer_draw(s: State, inp: DealerDraw, ev: list[Event]) -> None:
    if s.phase != DEALER_DRAW:
        return _reject(s, inp, None, "nobody is drawing for dealer now", ev)
    want = set(s.dealer_seats)
    got = set(inp.cards)
    if got != want:
        missing = sorted(want - got)
        extra = sorted(got - want)
        parts = []
        if missing:
            parts.append(f"missing seats {missing}")
        if extra:
            parts.append(f"seats {extra} are not drawing")
        return _reject(s, inp, None, "dealer draw: " + ", ".join(parts), ev)
    if s.rules.team_mode == "by-draw" and s.match is None:
        return _team_draw(s, inp, ev)
    numbers = {seat: FACE_RANK[FACE_OF[c]] for seat, c in inp.cards.items() if FACE_RANK[FACE_OF[c]] < 10}
    if not numbers:
        ev.append(DealerDrawNeeded(s.dealer_seats, "no number card drawn: action and wild cards cannot win (S2)"))
        return
    best = max(numbers.values())
    top = tuple(sorted(seat for seat, v in numbers.items() if v == best))
    if len(top) > 1:
        s.dealer_seats = top
        ev.append(DealerDrawNeeded(top, f"tie at {best}: these seats draw again (S2)"))
        return
    s.dealer = top[0]
    ev.append(DealerChosen(top[0], "S2", f"highest number {best}"))
    _deal(s, ev)


def _match_so_far(s: State):
    from table.matches import Match

    r = s.rules
    if s.match is None and r.empty_match is None:
        r.empty_match = Match(r.match_config)  # built once per rule set, copied per match
    return s.match if s.match is not None else r.empty_match


def _rotate_seating(s: State, dealer: int | None, ev: list[Event]) -> int | None:
    """T2: this round's seating from the schedule; the dealer (a seat, chosen before the
    players moved) becomes the seat that player moves to."""
    match = _match_so_far(s)
    tables = match.next_tables()
    if not tables:
        return dealer
    seating = tuple(tables[0])
    if seating != s.seating:
        old = s.seating
        if dealer is not None and old[dealer] in seating:
            dealer = seating.index(old[dealer])
        # else (T2 at two tables): the dealer went to the other table, or never sat at this
        # one before its first round; the same seat deals.
        s.seating = seating
        s.scores = [match.seat_totals.get(p, 0) for p in seating]
        teams = ((seating[0], seating[2]), (seating[1], seating[3]))
        ev.append(SeatingSet(seating, teams, "T2", f"round {len(match.rounds) + 1} of {len(match.schedule)}"))
    return dealer


def _team_draw(s: State, inp: DealerDraw, ev: list[Event]) -> None:
    """T3: the match's first draw forms the teams (table.teams.draw_teams), then the
    players sit partners opposite and the highest draw deals."""
    from table.matches import Match
    from table.teams import TeamError, draw_teams

    draws = s.team_draws + (dict(inp.cards),)
    try:
        result = draw_teams(draws)
    except TeamError as exc:
        return _reject(s, inp, None, f"team draw: {exc}", ev)
    s.team_draws = draws
    if not result.complete:
        s.dealer_seats = result.redraw
        ev.append(DealerDrawNeeded(result.redraw, f"{result.reason} (T3)"))
        return
    s.match = Match(s.rules.match_config, team_draws=list(draws))
    s.seating = tuple(result.seating)
    ev.append(SeatingSet(s.seating, tuple(tuple(t) for t in result.teams), "T3", "teams by draw"))
    s.dealer = s.seating.index(result.ranking[0])
    ev.append(DealerChosen(s.dealer, "T3", f"player {result.ranking[0]} drew highest"))
    _deal(s, ev)


def _deal(s: State, ev: list[Event]) -> None:
    r = s.rules
    s.hands = [0 if s.out >> x & 1 else r.hand_size for x in range(r.n)] if s.out else [r.hand_size] * r.n
    s.draw_count = DECK_SIZE - r.hand_size * s.live
    s.phase = FLIP
    ev.append(CardsDealt(r.hand_size, s.live, s.draw_count))


def _flip(s: State, inp: Flip, ev: list[Event]) -> None:
    if s.phase != FLIP:
        return _reject(s, inp, None, "the starter card is already turned up" if s.phase in IN_ROUND else "no deal is waiting for its starter card", ev)
    r = s.rules
    face = FACE_OF[inp.card]
    if face == WILD_DRAW4:
        return ev.append(StarterReturned(inp.card, "S4", "a Wild Draw Four cannot start"))
    if face == WILD and r.first_wild_redraw:
        return ev.append(StarterReturned(inp.card, "S4", "setup.first_wild is 'redraw'"))
    if r.flip_until_number and FACE_RANK[face] >= 10:
        return ev.append(StarterReturned(inp.card, "S4", "setup.flip_until_number: flip until a number shows"))
    dealer = s.dealer if s.dealer is not None else 0
    s.draw_count -= 1
    s.discard.append(face)
    s.top = face
    s.colour = FACE_COLOUR[face]
    s.direction = 1
    first = dealer if r.first_is_dealer else (dealer + 1) % r.n if not s.out else _step_from(s, dealer, 1)
    rank = FACE_RANK[face]
    s.last_player = -1
    if rank == REVERSE and s.live > 2:
        s.direction = -1
        if r.first_reverse == "right-of-dealer":
            first = _step_from(s, dealer, -1)
        elif r.first_reverse == "dealer-first":
            first = dealer
        ev.append(StarterAccepted(inp.card, first, -1, "S4"))
        ev.append(DirectionChanged(-1, "S4"))
        return _begin_turn(s, first, ev)
    ev.append(StarterAccepted(inp.card, first, 1, "S4" if rank >= 10 else "S5"))
    if rank == SKIP or rank == REVERSE:  # two players: a Reverse is a Skip (A4)
        ev.append(TurnSkipped(first, "S4" if rank == SKIP else "A4"))
        return _begin_turn(s, next_seat(s, first), ev)
    if rank == DRAW2:
        ev.append(PenaltyOrdered(first, 2, "S4", "the starter is a Draw Two"))
        _draw(s, first, 2, "S4", ev)
        ev.append(TurnSkipped(first, "S4"))
        return _begin_turn(s, next_seat(s, first), ev)
    if face == WILD:
        s.turn = first
        s.phase = COLOUR
        s.colour_seat = first
        s.after_colour = "start"
        ev.append(ColourNeeded(first))
        return
    _begin_turn(s, first, ev)


# ----- a turn (P), actions (A), wilds (W), house rules (H)


class _WindowPress(Input):
    """A seat-button press that a timed window claims (H10 sound, H11 slap); internal only:
    the log keeps the raw gesture, so replay re-derives it."""

    __slots__ = ("seat", "at", "window")
    kind = "gesture"

    def __init__(self, seat: int, at: float, window: str):
        self.seat, self.at, self.window = seat, at, window


def _may_jump_in(s: State, seat: int, faces: list[int]) -> bool:
    """H5: an out-of-turn play of card(s) identical to the top card."""
    kind = s.rules.jump
    if not kind or s.phase not in (PLAY, DRAWN) or s.pending or s.out >> seat & 1:
        return False
    top = s.top
    if top < 0 or any(f != top for f in faces):
        return False
    if kind == "number-only" and FACE_RANK[top] >= 10:
        return False
    if kind == "coloured-only" and top >= WILD:
        return False
    return seat != s.last_player or s.rules.jump_own


def _multi_play_ok(s: State, faces: list[int]) -> str | None:
    """H6: None if this multi-card placement is allowed, else the reason."""
    mode = s.rules.multi
    if not mode:
        return "one card per turn"
    if any(f >= WILD for f in faces):
        return "wild cards are played one at a time (H6)"
    rank = FACE_RANK[faces[0]]
    if any(FACE_RANK[f] != rank for f in faces):
        return "several cards in one turn must share one number or symbol (H6)"
    if mode == "identical-pair" and (len(faces) != 2 or faces[0] != faces[1]):
        return "only an identical pair may be played together (H6)"
    return None


def _stack_reason(s: State, faces: list[int]) -> str | None:
    """H1-H3: None if `faces` may answer the pending draw, else why not."""
    r = s.rules
    last = s.pending[-1]
    total = sum(p.count for p in s.pending)
    f = faces[0]
    k = len(faces)
    rank = FACE_RANK[f]
    if k == 1:
        if f == WILD_DRAW4:
            return None if r.stack4 else f"stacking a Wild Draw Four is off: draw {total} (H2)"
        if rank == DRAW2:
            if last.card == "draw4":
                return "a Draw Two may not go on a Wild Draw Four (H2)"
            if last.card == "pair":
                return "a single Draw Two may not cover a pair of Draw Twos (H2)"
            return None if r.stack2 else f"stacking Draw Twos is off: draw {total} (H1)"
        if rank in (SKIP, REVERSE) and r.deflect and last.card == "draw2":
            if FACE_COLOUR[f] == s.colour:
                return None
            return f"only a {COLOURS[s.colour]} {COLOURED_RANKS[rank]} deflects this Draw Two (H3)"
    elif all(FACE_RANK[x] == DRAW2 for x in faces):
        if k == 2 and r.pair_on4 and FACE_COLOUR[faces[0]] == FACE_COLOUR[faces[1]] and last.card in ("draw4", "pair"):
            return None
        if r.multi and r.stack2 and last.card == "draw2" and _multi_play_ok(s, faces) is None:
            return None
    return f"{FACE_TEXT[f]} cannot answer a pending draw of {total}: add a draw card or draw {total}"


def _until_stop(s: State, face: int) -> bool:
    """H7: the drawn card ends the drawing (playable; a number card with seed 002's variant or
    P6's number-only option). A Wild Draw Four may be played or drawn past (W2 is unseen)."""
    if face < 0 or face == WILD_DRAW4 or not is_playable(s, face):
        return False
    if (s.rules.until_number or s.rules.drawn_number_only) and (face >= WILD or FACE_RANK[face] >= 10):
        return False
    return True


def _illegal(s: State, seat: int, inp: Play, reason: str, rule: str, inferred: bool, ev: list[Event]) -> None:
    e = IllegalPlay(seat, inp.cards, reason, rule, inferred)
    ev.append(e)
    s.verdicts = s.verdicts[-4:] + (e,)
    # P7: the card goes back to the hand (the count never dropped) and the player draws.
    _penalty(s, seat, s.rules.illegal_penalty, "P7", f"illegal play: {reason}", ev)


def _play(s: State, inp: Play, ev: list[Event]) -> None:
    phase = s.phase
    inferred = inp.seat is None
    seat = s.turn if inferred else inp.seat
    cards = inp.cards
    if phase == PLAY and seat == s.turn and len(cards) == 1:
        face = FACE_OF[cards[0]]
        # the common case, kept lean: one card, in turn, no draw this turn
        if face >= WILD or FACE_COLOUR[face] == s.colour or (s.top < WILD and FACE_RANK[face] == FACE_RANK[s.top]):
            if s.rules.plain:
                return _accept_plain(s, seat, face, cards[0], inferred, ev)
            if not s.pending and not s.lock:
                return _accept(s, seat, face, cards[0], inferred, ev, None, inp.at)
    if phase not in IN_ROUND:
        return _reject(s, inp, seat, f"a card was placed but no round is in play ({phase})", ev)
    faces = [FACE_OF[c] for c in inp.cards]
    if phase == COLOUR:
        return _illegal(s, seat, inp, f"seat {s.colour_seat} must name the colour first", "W1", inferred, ev)
    if phase == SWAP:
        return _illegal(s, seat, inp, f"seat {s.swap_seat} must name the seat to swap hands with first", "H8", inferred, ev)
    if phase == CHALLENGE:
        if inferred:
            seat = s.challenger
        if seat == s.challenger and s.rules.stacking:
            reason = _stack_reason(s, faces)
            if reason is not None:
                return _illegal(s, seat, inp, reason, "H2", inferred, ev)
            # H2: the seat told to draw adds to the stack instead of challenging or drawing.
            # The challenged seat's deferred penalties apply once the card is on the pile (a
            # reshuffle for them keeps it on top), see _accept.
            s.challenger = s.challenged = -1
            s.phase = PLAY
            return _accept(s, seat, faces[-1], cards[-1], inferred, ev, faces if len(faces) > 1 else None, inp.at)
        return _illegal(s, seat, inp, f"seat {s.challenger} must draw 4 or challenge first", "W3", inferred, ev)
    if phase == REVEAL:
        return _illegal(s, seat, inp, f"seat {s.challenged} must lay the hand face up for the challenge first", "W3", inferred, ev)
    jump = False
    if seat != s.turn:
        if not _may_jump_in(s, seat, faces):
            return _illegal(s, seat, inp, f"out of turn: it is seat {s.turn}'s turn", "P1", inferred, ev)
        jump = True
    multi = faces if len(faces) > 1 else None
    if s.pending:
        reason = _stack_reason(s, faces)
        if reason is not None:
            return _illegal(s, seat, inp, reason, "H2" if s.pending[-1].card != "draw2" else "H1", inferred, ev)
        return _accept(s, seat, faces[-1], cards[-1], inferred, ev, multi, inp.at)
    if multi:
        reason = _multi_play_ok(s, faces)
        if reason is not None:
            return _illegal(s, seat, inp, reason, "P4" if not s.rules.multi else "H6", inferred, ev)
    face = faces[0]
    if phase == DRAWN and not jump:
        drawn = s.drawn
        if drawn >= 0 and (face != drawn or multi):
            return _illegal(s, seat, inp, f"after drawing only the drawn {FACE_TEXT[drawn]} may be played", "P6", inferred, ev)
        if s.rules.drawn_number_only and (face >= WILD or FACE_RANK[face] >= 10):
            return _illegal(s, seat, inp, f"after drawing only a number card may be played at once, not {FACE_TEXT[face]}", "P6", inferred, ev)
    if s.lock and not jump and face < WILD and FACE_COLOUR[face] != s.colour:
        return _illegal(s, seat, inp, f"{FACE_TEXT[face]}: after the stack was drawn the next card must be {COLOURS[s.colour]} (H4)", "H4", inferred, ev)
    if not is_playable(s, face):
        rule = "P3" if s.top >= WILD else "P2"
        return _illegal(s, seat, inp, f"{FACE_TEXT[face]} does not match {current_text(s)}", rule, inferred, ev)
    if jump:
        ev.append(Notice(seat, f"seat {seat} jumps in with {FACE_TEXT[face]} (H5)"))
    _accept(s, seat, faces[-1], cards[-1], inferred, ev, multi, inp.at)



def _note_uno(s: State, seat: int, bit: int, left: int, ev: list[Event]) -> None:
    """U1/U2 after a play: a call pressed with the card counts; one card left without it is
    catchable until the next player begins; a call armed for a longer hand lapses."""
    if left == 1:
        if s.armed & bit:
            s.armed &= ~bit
            s.called |= bit
            ev.append(UnoCalled(seat))
        else:
            s.exposed |= bit  # U2: catchable until the next player begins
            s.exposed_seq = s.seq
    elif s.armed & bit:
        s.armed &= ~bit

def _accept(s: State, seat: int, face: int, card: str, inferred: bool, ev: list[Event],
            faces: list[int] | None = None, at: float | None = None) -> None:  # fmt: skip
    """A legal play: the card(s) are on the pile (the last one on top); apply the effect
    (A1-A5, W1, W2, H1-H11)."""
    if s.rules.plain:
        return _accept_plain(s, seat, face, card, inferred, ev)
    k = 1 if faces is None else len(faces)
    hands = s.hands
    if hands[seat] < k:
        ev.append(HandCountCorrected(seat, hands[seat], k, "play", "cards were played from a hand counted smaller"))
        s.draw_count -= k - hands[seat]
        hands[seat] = k
    hands[seat] -= k
    if faces is None:
        s.discard.append(face)
    else:
        s.discard.extend(faces)
    s.prev_colour, s.prev_top, s.prev_lock = s.colour, s.top, s.lock
    s.top = face
    s.lock = False
    s.last_player = seat
    # Accepted: this seat began its turn, which closes the previous UNO window (U2). The card
    # is already on the pile, so a reshuffle for a strict catch (U6) keeps it on top.
    if s.exposed or s.caught:
        _close_uno_window(s, ev, seat)
    if s.deferred:  # a stack answered instead of a challenge (H2): the waiting penalties apply
        _flush_deferred(s, ev)
    if s.windows:
        _windows_on_play(s, seat, at, ev)
    left = hands[seat]
    e = PlayAccepted(seat, card, left, inferred) if faces is None else PlayAccepted(seat, card, left, inferred, tuple(CARD_IDS[f] for f in faces))
    ev.append(e)
    s.verdicts = s.verdicts[-4:] + (e,)
    bit = 1 << seat
    _note_uno(s, seat, bit, left, ev)
    r = s.rules
    rank = FACE_RANK[face]
    out = False  # the seat went out: the round ends after the card's owed draw (R1, A5)
    if left == 0:
        if r.last_card_draw and (face >= WILD or rank >= 10):
            why = f"the last card may not be {FACE_TEXT[face]}: draw one more"
            s.called |= bit  # the forced draw is not a missed UNO call
            if face >= WILD:  # after the colour (and a challenge, which judges the hand as played)
                s.deferred.append((seat, 1, "R7", why))
            else:
                ev.append(PenaltyOrdered(seat, 1, "R7", why))
                _draw(s, seat, 1, "R7", ev)
        elif r.continuous and s.live > 2:
            _seat_finished(s, seat, ev)  # R5: play goes on without this seat
        else:
            out = True
    if face >= WILD:
        if out:  # going out on a wild: no colour to name; A5 for a Wild Draw Four
            if face == WILD_DRAW4:
                victim = next_seat(s, seat)
                total = 4 + sum(p.count for p in s.pending)
                s.pending = []
                ev.append(PenaltyOrdered(victim, total, "A5", "went out on a Wild Draw Four: the next player still draws"))
                _draw(s, victim, total, "A5", ev)
            return _end_round(s, seat, ev)
        s.colour = -1
        s.phase = COLOUR
        s.colour_seat = seat
        s.after_colour = "wd4" if face == WILD_DRAW4 else "wild"
        ev.append(ColourNeeded(seat))
        return
    s.colour = FACE_COLOUR[face]
    if rank < 10:
        if r.number_hooks and _number_card(s, seat, face, rank, out, at, ev):
            return
        if out:
            return _end_round(s, seat, ev)
        if s.out:
            return _begin_turn(s, next_seat(s, seat), ev)
        return _begin_turn(s, (seat + s.direction) % r.n, ev)
    two = s.live == 2
    times = k if (faces is not None and r.multi == "same-rank") else 1  # H6: each card counts
    if rank == DRAW2:
        victim = next_seat(s, seat)
        if faces is not None and s.pending and s.pending[-1].card in ("draw4", "pair"):
            s.pending.append(PendingDraw(4, "H2", seat, victim, "pair"))  # seed 003: a pair covers a Draw Four
        else:
            rule = ("H1" if s.pending else "A3") if not two else "A4"
            s.pending.append(PendingDraw(2 * times, rule, seat, victim, "draw2"))
        if r.stacking and not out:
            # H1/H2: the next player may add to the stack, or draw it all (Draw, Pass, hold).
            _retarget(s, victim)
            return _begin_turn(s, victim, ev)
        _resolve_pending(s, victim, ev, "went out on a Draw Two: the next player still draws (A5)" if out else "")
        if out:
            return _end_round(s, seat, ev)
        ev.append(TurnSkipped(victim, "A3" if not two else "A4"))
        return _begin_turn(s, next_seat(s, victim), ev)
    if s.pending:  # H3: a same-colour Skip / Reverse deflects the pending Draw Two
        if rank == REVERSE and not two:
            s.direction = -s.direction
            ev.append(DirectionChanged(s.direction, "H3"))
            victim = next_seat(s, seat)
        else:
            victim = next_seat(s, seat, 1 if two else 2)
        ev.append(Notice(seat, f"seat {seat} deflects the pending draw to seat {victim} (H3)"))
        _retarget(s, victim)
        if out:
            _resolve_pending(s, victim, ev, "went out deflecting: the draw is still owed (A5)")
            return _end_round(s, seat, ev)
        return _begin_turn(s, victim, ev)
    if out:
        return _end_round(s, seat, ev)
    if rank == SKIP or two:  # A4: with two players a Reverse is a Skip
        victim = seat
        for _ in range(times):  # H6: n Skips skip n players
            victim = next_seat(s, victim)
            ev.append(TurnSkipped(victim, "A1" if not two else "A4"))
        return _begin_turn(s, next_seat(s, victim), ev)
    if times % 2:  # H6: an even number of Reverses leaves the direction as it was
        s.direction = -s.direction  # A2
        ev.append(DirectionChanged(s.direction, "A2"))
    _begin_turn(s, next_seat(s, seat), ev)


def _accept_plain(s: State, seat: int, face: int, card: str, inferred: bool, ev: list[Event]) -> None:
    """`_accept` for rules without house rules, R7 or seats leaving the rotation (the
    official game): one card, no stack, no window, no out seats. Same results, less work
    on the path every simulated turn takes."""
    hands = s.hands
    if hands[seat] <= 0:
        ev.append(HandCountCorrected(seat, 0, 1, "play", "a card was played from a hand counted empty"))
        hands[seat] = 1
        s.draw_count -= 1
    hands[seat] -= 1
    s.discard.append(face)
    s.prev_colour, s.prev_top = s.colour, s.top
    s.top = face
    s.last_player = seat
    if s.exposed or s.caught:
        _close_uno_window(s, ev, seat)
    left = hands[seat]
    e = PlayAccepted(seat, card, left, inferred)
    ev.append(e)
    s.verdicts = s.verdicts[-4:] + (e,)
    bit = 1 << seat
    _note_uno(s, seat, bit, left, ev)
    n = s.rules.n
    if face >= WILD:
        if left == 0:  # going out on a wild: no colour to name; A5 for a Wild Draw Four
            if face == WILD_DRAW4:
                victim = next_seat(s, seat)
                ev.append(PenaltyOrdered(victim, 4, "A5", "went out on a Wild Draw Four: the next player still draws"))
                _draw(s, victim, 4, "A5", ev)
            return _end_round(s, seat, ev)
        s.colour = -1
        s.phase = COLOUR
        s.colour_seat = seat
        s.after_colour = "wd4" if face == WILD_DRAW4 else "wild"
        ev.append(ColourNeeded(seat))
        return
    s.colour = FACE_COLOUR[face]
    rank = FACE_RANK[face]
    if rank < 10:
        if left == 0:
            return _end_round(s, seat, ev)
        return _begin_turn(s, (seat + s.direction) % n, ev)
    if rank == DRAW2:
        victim = next_seat(s, seat)
        rule = "A3" if n > 2 else "A4"
        ev.append(PenaltyOrdered(victim, 2, rule, "went out on a Draw Two: the next player still draws (A5)" if left == 0 else "Draw Two"))
        _draw(s, victim, 2, rule, ev)
        if left == 0:
            return _end_round(s, seat, ev)
        ev.append(TurnSkipped(victim, rule))
        return _begin_turn(s, next_seat(s, victim), ev)
    if left == 0:
        return _end_round(s, seat, ev)
    if rank == SKIP or n == 2:  # A4: with two players a Reverse is a Skip
        victim = next_seat(s, seat)
        ev.append(TurnSkipped(victim, "A1" if n > 2 else "A4"))
        return _begin_turn(s, next_seat(s, victim), ev)
    s.direction = -s.direction  # A2
    ev.append(DirectionChanged(s.direction, "A2"))
    _begin_turn(s, next_seat(s, seat), ev)


def _retarget(s: State, victim: int) -> None:
    # PendingDraw objects are shared with older states: replace, never mutate.
    s.pending = [PendingDraw(p.count, p.rule, p.source, victim, p.card) for p in s.pending]


def _number_card(s: State, seat: int, face: int, rank: int, out: bool, at: float | None, ev: list[Event]) -> bool:
    """H8-H11 effects of a number card; True when it decided the next step itself."""
    r = s.rules
    if r.silent2 and rank == 2:
        s.windows = tuple(w for w in s.windows if w[0] != "silent2") + (("silent2", seat, at),)
        ev.append(WindowOpened("silent2", seat, "H10", at))
    if r.slap9 and rank == 9:
        s.windows = s.windows + (("slap9", seat, -1.0 if at is None else at, ()),)
        ev.append(WindowOpened("slap9", seat, "H11", at))
    if r.red0 and face == 0:  # red 0: the next player draws ten and loses the turn (H9)
        victim = next_seat(s, seat)
        ev.append(PenaltyOrdered(victim, 10, "H9", "red 0 is a Draw Ten"))
        _draw(s, victim, 10, "H9", ev)
        if out:
            _end_round(s, seat, ev)
            return True
        ev.append(TurnSkipped(victim, "H9"))
        _begin_turn(s, next_seat(s, victim), ev)
        return True
    if r.zero and rank == 0 and (not r.zero_current or FACE_COLOUR[face] == s.prev_colour):
        _rotate_hands(s, ev)  # seed 002: even as the last card, the hands move on
        if s.hands[seat] > 0 and out:
            out = False
        if out:
            _end_round(s, seat, ev)
            return True
        _begin_turn(s, next_seat(s, seat), ev)
        return True
    if r.seven and rank == 7 and not out and s.hands[seat] >= 0 and not s.out >> seat & 1:
        s.phase = SWAP
        s.swap_seat = seat
        ev.append(SwapNeeded(seat))
        return True
    return False


def _uno_recheck(s: State, seats) -> None:
    """After hands moved (H8): a seat now holding one card may call and can be caught until
    the next turn begins; flags of seats whose hands changed start over."""
    for x in seats:
        bit = 1 << x
        s.called &= ~bit
        s.armed &= ~bit
        s.exposed &= ~bit
        s.caught &= ~bit
        if s.hands[x] == 1:
            s.exposed |= bit
    s.exposed_seq = s.seq


def _rotate_hands(s: State, ev: list[Event]) -> None:
    live = [x for x in range(s.rules.n) if not s.out >> x & 1]
    old = s.hands[:]
    moves = []
    for x in live:
        to = next_seat(s, x)
        s.hands[to] = old[x]
        moves.append((x, to))
    _uno_recheck(s, live)
    ev.append(HandsMoved("H8", tuple(moves), tuple(s.hands)))


def _swap(s: State, inp: SwapHands, ev: list[Event]) -> None:
    if s.phase != SWAP:
        return _reject(s, inp, inp.seat, "no 7 is waiting for a swap now", ev)
    seat = s.swap_seat
    if inp.seat is not None and inp.seat != seat:
        return _reject(s, inp, inp.seat, f"seat {seat} played the 7 and names the swap, not seat {inp.seat}", ev)
    t = inp.target
    if t == seat or s.out >> t & 1:
        return _reject(s, inp, seat, f"seat {t} cannot be swapped with: choose another seat in the game", ev)
    s.hands[seat], s.hands[t] = s.hands[t], s.hands[seat]
    _uno_recheck(s, (seat, t))
    ev.append(HandsMoved("H8", ((seat, t), (t, seat)), tuple(s.hands)))
    s.swap_seat = -1
    s.phase = PLAY
    _begin_turn(s, next_seat(s, seat), ev)


def _seat_finished(s: State, seat: int, ev: list[Event]) -> None:
    s.out |= 1 << seat
    s.live -= 1
    s.finish = s.finish + (seat,)
    bit = ~(1 << seat)
    s.called &= bit
    s.exposed &= bit
    ev.append(SeatOut(seat, "R5", f"went out in place {len(s.finish)}"))


def _resolve_pending(s: State, victim: int, ev: list[Event], reason: str = "") -> None:
    """The whole pending stack is drawn by `victim` now (without stacking it holds one draw)."""
    pending = s.pending
    if not pending:
        return
    total = sum(p.count for p in pending)
    if len(pending) == 1:
        rule = pending[0].rule
    else:
        rule = "H2" if any(p.card != "draw2" for p in pending) else "H1"
    why = reason or ("Draw Two" if rule in ("A3", "A4", "H1") else "Wild Draw Four" if rule == "W2" else "stacked draws")
    ev.append(PenaltyOrdered(victim, total, rule, why))
    _draw(s, victim, total, rule, ev)
    # H4: after a Draw Two stack is drawn, the next player follows its colour (no symbol match).
    if s.rules.follow and s.top < WILD and any(p.card == "draw2" for p in pending):
        s.lock = True
    s.pending = []


def _take_stack(s: State, seat: int, ev: list[Event]) -> None:
    """The seat facing a pending stack draws it all and loses the turn (H1, H2)."""
    rule = s.pending[-1].rule
    _resolve_pending(s, seat, ev)
    ev.append(TurnSkipped(seat, rule))
    _begin_turn(s, next_seat(s, seat), ev)


def _name_colour(s: State, inp: NameColour, ev: list[Event]) -> None:
    if s.phase != COLOUR:
        return _reject(s, inp, inp.seat, "no colour is being named now", ev)
    seat = s.colour_seat
    if inp.seat is not None and inp.seat != seat:
        return _reject(s, inp, inp.seat, f"seat {seat} names the colour, not seat {inp.seat}", ev)
    s.colour = COLOUR_OF_NAME[inp.colour]
    ev.append(ColourNamed(seat, inp.colour, inp.seat is None))
    if s.exposed >> seat & 1:
        s.exposed_seq = s.seq  # naming the colour is part of the play (U3 'late' counts after it)
    after = s.after_colour
    s.after_colour = ""
    s.colour_seat = -1
    if after == "start" or after == "wild":
        s.phase = PLAY  # leaves COLOUR so the deferred penalties apply now
        _flush_deferred(s, ev)
        return _begin_turn(s, seat if after == "start" else next_seat(s, seat), ev)
    victim = next_seat(s, seat)
    if not s.pending:
        s.pending.append(PendingDraw(4, "W2", seat, victim, "draw4"))
        first = True
    else:
        first = not any(p.card == "draw4" for p in s.pending)
        s.pending.append(PendingDraw(4, "H2", seat, victim, "draw4"))
        _retarget(s, victim)
    if not first:
        # W4: only the first Wild Draw Four of a chain may be challenged.
        s.phase = PLAY
        _flush_deferred(s, ev)
        return _begin_turn(s, victim, ev)
    s.challenger, s.challenged = victim, seat
    s.phase = CHALLENGE
    _flush_deferred(s, ev)  # the challenged seat's own penalties wait for the verdict
    ev.append(ChallengeOffered(victim, seat, sum(p.count for p in s.pending)))


def _accept_draw4(s: State, ev: list[Event]) -> None:
    victim = s.challenger
    s.phase = PLAY
    rule = s.pending[-1].rule if s.pending else "W2"
    _resolve_pending(s, victim, ev)
    s.challenger = s.challenged = -1
    _flush_deferred(s, ev)
    ev.append(TurnSkipped(victim, rule if s.live > 2 else "A4"))
    _begin_turn(s, next_seat(s, victim), ev)


def _challenge(s: State, inp: Challenge, ev: list[Event]) -> None:
    if s.phase != CHALLENGE:
        return _reject(s, inp, inp.seat, "there is no Wild Draw Four to challenge now", ev)
    seat = s.challenger if inp.seat is None else inp.seat
    if seat != s.challenger:
        return _reject(s, inp, seat, f"only seat {s.challenger}, told to draw 4, may challenge (W3)", ev)
    if not inp.challenge:
        return _accept_draw4(s, ev)
    s.phase = REVEAL
    if s.hands[s.challenged] == 0:
        # The Wild Draw Four was the last card (its R7 draw waits for the verdict): an empty
        # hand is shown by showing nothing, and nothing the camera could wait for.
        return _reveal(s, Reveal(seat=s.challenged, cards=()), ev)
    ev.append(RevealNeeded(s.challenged, "challenge"))


def _check_count(s: State, seat: int, faces: list[int], ev: list[Event]) -> None:
    old = s.hands[seat]
    if old != len(faces):
        diff = len(faces) - old
        s.hands[seat] = len(faces)
        s.draw_count -= diff
        ev.append(HandCountCorrected(seat, old, len(faces), "reveal", "the revealed hand differs from the tracked count: check with the host"))


def _reveal(s: State, inp: Reveal, ev: list[Event]) -> None:
    faces = [FACE_OF[c] for c in inp.cards]
    seat = inp.seat
    if s.phase == REVEAL:
        if seat != s.challenged:
            return _reject(s, inp, seat, f"seat {s.challenged} must reveal for the challenge, not seat {seat}", ev)
        _check_count(s, seat, faces, ev)
        r = s.rules
        prev_colour = s.prev_colour
        if r.wd4_no_playable:
            bad = _playable_instead(s, faces)
            reason_ok = "no other playable card"
        else:
            bad = [f for f in faces if FACE_COLOUR[f] == prev_colour]
            reason_ok = f"no {COLOURS[prev_colour]} card" if prev_colour >= 0 else "no colour to follow"
        challenger, challenged = s.challenger, s.challenged
        chain = sum(p.count for p in s.pending)
        rule = "W4" if len(s.pending) > 1 else "W3"
        s.pending = []
        s.challenger = s.challenged = -1
        s.phase = PLAY
        if bad:
            # Guilty: the challenged seat draws 4; the challenger escapes the whole chain (W4).
            ev.append(ChallengeResolved(challenger, challenged, True, challenged, 4, f"held {FACE_TEXT[bad[0]]}", rule))
            ev.append(PenaltyOrdered(challenged, 4, rule, "Wild Draw Four played illegally"))
            _draw(s, challenged, 4, rule, ev)
        else:
            # Innocent: the challenger draws the accumulated count plus the extra (W3: 4 + 2).
            count = chain + r.challenge_extra
            ev.append(ChallengeResolved(challenger, challenged, False, challenger, count, reason_ok, rule))
            ev.append(PenaltyOrdered(challenger, count, rule, "unsuccessful challenge"))
            _draw(s, challenger, count, rule, ev)
        _flush_deferred(s, ev)
        ev.append(TurnSkipped(challenger, "W3"))
        return _begin_turn(s, next_seat(s, challenger), ev)
    if s.phase == ROUND_OVER:
        if seat == s.winner:
            return _reject(s, inp, seat, f"seat {seat} went out and has nothing to reveal", ev)
        if seat in s.revealed and not s.held:
            return _reject(s, inp, seat, f"seat {seat} already revealed", ev)
        if s.hands[seat] == 0 and seat not in s.revealed:
            return _reject(s, inp, seat, f"seat {seat} holds no cards", ev)
        s.revealed[seat] = tuple(faces)  # a re-reveal while the score is held replaces it
        s.held = ()
        if not _awaiting_reveal(s):
            _score_round(s, ev)
        return
    if s.phase in IN_ROUND:  # a check requested by the host: the count follows what is seen
        old = s.hands[seat]
        _check_count(s, seat, faces, ev)
        if old == len(faces):
            ev.append(Notice(seat, f"seat {seat} showed {len(faces)} cards: count confirmed"))
        return
    _reject(s, inp, seat, "no round in progress", ev)


def _playable_instead(s: State, faces: list[int]) -> list[int]:
    """W2 (seed 002): the cards of a revealed hand that could have been played instead of the
    Wild Draw Four, in the position it was played in: the top card and colour then, the H4
    colour lock then, and the stack it was added to (facing a stack only what may answer it
    counts, H1-H3)."""
    probe = s.copy()
    probe.colour, probe.top, probe.lock = s.prev_colour, s.prev_top, s.prev_lock
    probe.pending = s.pending[:-1]  # the Wild Draw Four judged is the chain's last entry
    return [f for f in faces if f != WILD_DRAW4 and _may_play_now(probe, f)]


def _awaiting_reveal(s: State) -> list[int]:
    return [x for x in range(s.rules.n) if x != s.winner and x not in s.revealed and s.hands[x] > 0]


def _draw_input(s: State, inp: Draw, ev: list[Event]) -> None:
    inferred = inp.seat is None
    phase = s.phase
    if phase == CHALLENGE:
        seat = s.challenger if inferred else inp.seat
        if seat == s.challenger:
            return _accept_draw4(s, ev)
    seat = s.turn if inferred else inp.seat
    if phase not in (PLAY, DRAWN):
        return _reject(s, inp, seat, f"no draw expected now ({phase})", ev)
    if seat != s.turn:
        return _reject(s, inp, seat, f"seat {seat} drew out of turn (it is seat {s.turn}'s turn); penalty draws are counted automatically", ev)
    if s.pending:  # H1/H2: drawing means taking the whole stack
        if s.exposed or s.caught:
            _close_uno_window(s, ev, seat)
        return _take_stack(s, seat, ev)
    if phase == DRAWN and not (s.rules.until and not _until_stop(s, s.drawn)):
        return _reject(s, inp, seat, "already drew this turn: play the drawn card or pass (P6)", ev)
    if phase == PLAY and s.rules.attack:
        return _reject(s, inp, seat, "attack mode: press the launcher instead of drawing (H12)", ev)
    if inp.count != 1:
        return _reject(s, inp, seat, f"a turn's draw is one card, not {inp.count} (P6)", ev)
    got = _draw(s, seat, 1, "P5" if phase == PLAY else "H7", ev, inferred=inferred, cards=inp.cards)
    s.phase = DRAWN
    s.drawn = FACE_OF[inp.cards[0]] if inp.cards and got else UNKNOWN_CARD
    # The draw began the turn (U2). The reported card is the one drawn first, so a strict
    # catch's penalty (U6) comes from the pile after it.
    if s.exposed or s.caught:
        _close_uno_window(s, ev, seat)


def _pass(s: State, inp: Pass, ev: list[Event]) -> None:
    inferred = inp.seat is None
    if s.phase == CHALLENGE and (inferred or inp.seat == s.challenger):
        return _accept_draw4(s, ev)
    seat = s.turn if inferred else inp.seat
    if s.phase not in (PLAY, DRAWN):
        return _reject(s, inp, seat, f"no pass expected now ({s.phase})", ev)
    if seat != s.turn:
        return _reject(s, inp, seat, f"seat {seat} passed out of turn (it is seat {s.turn}'s turn)", ev)
    if s.pending:
        if s.exposed or s.caught:
            _close_uno_window(s, ev, seat)
        return _take_stack(s, seat, ev)
    if s.phase == DRAWN and s.rules.until and s.drawn >= 0:
        if _until_stop(s, s.drawn):
            return _reject(s, inp, seat, f"draw until playable: play the drawn {FACE_TEXT[s.drawn]} (H7)", ev)
        if s.drawn != WILD_DRAW4 and (s.draw_count > 0 or len(s.discard) > 1):
            return _reject(s, inp, seat, "draw until playable: keep drawing (H7)", ev)
    if s.exposed or s.caught:
        _close_uno_window(s, ev, seat)
    if s.phase == PLAY:  # P5/P6: a pass means the player drew one card first
        _draw(s, seat, 1, "P6", ev, inferred=True)
    ev.append(TurnPassed(seat, inferred))
    _begin_turn(s, next_seat(s, seat), ev)


def _attack(s: State, inp: Attack, ev: list[Event]) -> None:
    seat = s.turn if inp.seat is None else inp.seat
    if not s.rules.attack:
        return _reject(s, inp, seat, "house.attack_mode is off: draw a card instead", ev)
    if s.phase != PLAY or seat != s.turn:
        return _reject(s, inp, seat, f"only seat {s.turn} may press the launcher now, at the start of its turn (H12)", ev)
    if s.exposed or s.caught:
        _close_uno_window(s, ev, seat)
    if s.pending:
        return _take_stack(s, seat, ev)
    count = int(inp.roll * (s.rules.attack_max + 1))
    ev.append(LauncherFired(seat, count, inp.roll))
    if count:
        _draw(s, seat, count, "H12", ev)
    ev.append(TurnPassed(seat, inp.seat is None))
    _begin_turn(s, next_seat(s, seat), ev)


# ----- timed seat-button windows (H10 Silent 2, H11 Slap 9)


def _close_window(s: State, w: tuple, losers: tuple[int, ...], reason: str, ev: list[Event]) -> None:
    s.windows = tuple(x for x in s.windows if x is not w)
    rule = "H10" if w[0] == "silent2" else "H11"
    presses = w[3] if w[0] == "slap9" else ()
    ev.append(WindowClosed(w[0], rule, losers, reason, presses))
    for x in losers:
        _penalty(s, x, s.rules.slap_penalty, rule, "made a sound during Silent 2" if rule == "H10" else "slowest to slap the 9", ev)


def _slap_timeout(s: State, at: float | None, ev: list[Event], force: bool = False) -> None:
    for w in s.windows:
        if w[0] != "slap9":
            continue
        start = w[2] if w[2] >= 0 else (w[3][0][1] if w[3] else -1.0)
        late = force or (at is not None and start >= 0 and at > start + s.rules.slap_limit)
        if late:
            pressed = {p[0] for p in w[3]}
            losers = tuple(x for x in range(s.rules.n) if x not in pressed and not s.out >> x & 1)
            _close_window(s, w, losers, "no press within the time limit" if not force else "play went on before every seat pressed", ev)


def _windows_on_play(s: State, seat: int, at: float | None, ev: list[Event]) -> None:
    _slap_timeout(s, at, ev, force=True)
    for w in s.windows:
        if w[0] == "silent2" and w[1] == seat:
            _close_window(s, w, (), f"seat {seat} played again", ev)


def _window_press(s: State, p: _WindowPress, ev: list[Event]) -> None:
    seat, at = p.seat, p.at
    _slap_timeout(s, at, ev)
    for w in s.windows:
        if w[0] == p.window == "slap9":
            presses = w[3] + ((seat, at),)
            nw = (w[0], w[1], w[2], presses)
            s.windows = tuple(nw if x is w else x for x in s.windows)
            live = [x for x in range(s.rules.n) if not s.out >> x & 1]
            if len(presses) >= len(live):
                # The slowest press by time; equal times: the one the referee received last.
                slowest = max(range(len(presses)), key=lambda i: (presses[i][1], i))
                _close_window(s, nw, (presses[slowest][0],), f"seat {presses[slowest][0]} slapped last", ev)
            else:
                ev.append(Notice(seat, f"seat {seat} slaps the 9 at {at:g}s (H11)"))
            return
        if w[0] == p.window == "silent2":
            return _close_window(s, w, (seat,), f"seat {seat} made the first sound", ev)
    ev.append(Notice(seat, f"seat {seat} pressed; the window is closed"))


def _tick(s: State, inp: Tick, ev: list[Event]) -> None:
    if s.windows:
        _slap_timeout(s, inp.at, ev)


# ----- UNO (U)


def _call_uno(s: State, inp: CallUno, ev: list[Event]) -> None:
    seat = inp.seat
    if s.phase not in IN_ROUND:
        return _reject(s, inp, seat, "no round in progress", ev)
    bit = 1 << seat
    count = s.hands[seat]
    if s.caught & bit:
        return ev.append(Notice(seat, f"seat {seat} was already caught; the late call does not count"))
    if count == 1:
        if s.called & bit:
            return ev.append(Notice(seat, f"seat {seat} already called UNO"))
        # U3: late = another input came between the play that left one card and this call
        # (the call pressed with the play, or right after it, is on time).
        late = bool(s.exposed & bit) and s.seq > s.exposed_seq + 1
        s.exposed &= ~bit
        s.called |= bit
        return ev.append(UnoCalled(seat, late))
    if (count == 2 or (count > 2 and s.rules.multi)) and _may_play_next(s, seat):
        s.armed |= bit  # said while laying down the second-to-last card
        return ev.append(Notice(seat, f"seat {seat} calls UNO with the card about to be played"))
    ev.append(Notice(seat, f"false UNO call: seat {seat} holds {count} cards"))
    _penalty(s, seat, s.rules.false_call, "U4", f"called UNO holding {count} cards", ev)


def _may_play_next(s: State, seat: int) -> bool:
    """U1: may `seat`'s next input be a card of its own hand going down? Then a call pressed
    now comes with that card, whichever way it reached the hand: a turn's play, the card just
    drawn (P6, H7), the first play after naming a Wild starter's colour (S4), or a card added
    to a stack instead of challenging (H2)."""
    phase = s.phase
    if phase == PLAY or phase == DRAWN:
        return seat == s.turn
    if phase == COLOUR:
        return s.after_colour == "start" and seat == s.colour_seat
    if phase == CHALLENGE:
        return seat == s.challenger and s.rules.stacking
    return False


def _catch(s: State, inp: Catch, ev: list[Event]) -> None:
    seat = inp.seat
    if s.phase not in IN_ROUND:
        return _reject(s, inp, seat, "no round in progress", ev)
    if inp.target is not None:
        if inp.target == seat:
            return _reject(s, inp, seat, "a seat cannot catch itself", ev)
        targets = 1 << inp.target
    else:
        targets = s.exposed & ~(1 << seat)
        if not targets and s.exposed & (1 << seat):
            # The exposed player's own double press: taken as the call, not a self-catch.
            return _call_uno(s, CallUno(seat=seat, at=inp.at), ev)
    hit = s.exposed & targets
    if hit:
        for t in range(s.rules.n):
            if hit >> t & 1:
                s.exposed &= ~(1 << t)
                s.caught |= 1 << t
                ev.append(UnoCaught(t, seat, "U2"))
                _penalty(s, t, s.rules.missed, "U2", f"caught by seat {seat} without calling UNO", ev)
        return
    if s.caught & (targets or s.caught):
        return ev.append(Notice(seat, "already caught: the first catch counts"))
    if inp.target is None:
        why = "nobody is catchable now"
    elif s.called & targets:
        why = f"seat {inp.target} had called UNO"
    elif s.hands[inp.target] == 1:  # U2: the window closed; too late, not a wrong catch
        return ev.append(Notice(seat, f"seat {inp.target} can no longer be caught: the next player began"))
    else:
        why = f"seat {inp.target} holds {s.hands[inp.target]} cards"
    ev.append(Notice(seat, f"wrong catch: {why}"))
    _penalty(s, seat, s.rules.wrong_catch, "U5", f"wrong catch: {why}", ev)


def _gesture(s: State, inp: SeatGesture, ev: list[Event]) -> None:
    meaning = interpret_gesture(s, inp)
    if isinstance(meaning, str):
        return _reject(s, inp, inp.seat, meaning, ev)
    _HANDLERS[type(meaning)](s, meaning, ev)


# ----- host


def _correct_count(s: State, inp: CorrectCount, ev: list[Event]) -> None:
    seat = inp.seat
    if s.phase not in IN_ROUND and s.phase != ROUND_OVER:
        return _reject(s, inp, seat, "no round in progress", ev)
    old = s.hands[seat]
    diff = inp.count - old
    if diff > s.draw_count:
        return _reject(s, inp, seat, f"only {s.draw_count} cards are left in the draw pile", ev)
    s.hands[seat] = inp.count
    s.draw_count -= diff
    if inp.count != 1:
        bit = ~(1 << seat)
        s.called &= bit
        s.exposed &= bit
        s.armed &= bit
    ev.append(HandCountCorrected(seat, old, inp.count, "host", inp.reason or "host correction"))


def _host_penalty(s: State, inp: HostPenalty, ev: list[Event]) -> None:
    if s.phase not in IN_ROUND:
        return _reject(s, inp, inp.seat, "no round in progress", ev)
    count = inp.count
    if count is None:
        if inp.rule != "P8":
            return _reject(s, inp, inp.seat, f"host penalty under {inp.rule}: say how many cards", ev)
        count = s.rules.advice_penalty
    reason = inp.reason or ("gave advice to another player" if inp.rule == "P8" else "host penalty")
    _penalty(s, inp.seat, count, inp.rule, reason, ev)


# ----- end of round (R1), scoring through table.matches (R2-R6, T1), host end


def _end_round(s: State, winner: int, ev: list[Event]) -> None:
    s.phase = ROUND_OVER
    s.winner = winner
    s.last_winner = winner
    s.called = s.exposed = s.caught = s.armed = 0
    s.pending = []
    s.lock = False
    if s.rules.continuous:
        s.finish = s.finish + (winner,)
    for w in s.windows:
        ev.append(WindowClosed(w[0], "H10" if w[0] == "silent2" else "H11", (), "the round is over"))
    s.windows = ()
    first = s.finish[0] if s.finish else winner
    ev.append(RoundEnded(s.round, first))
    s.winner = first
    waiting = _awaiting_reveal(s)
    for seat in waiting:
        ev.append(RevealNeeded(seat, "score"))
    if not waiting:
        _score_round(s, ev)


def _round_result(s: State, confirmed: bool):
    from table.scoring import RoundResult, trusted

    n = s.rules.n
    eliminated = set(s.match.eliminated) if s.match is not None else set()
    seats = tuple(x for x in range(n) if x not in eliminated)
    order = ()
    if s.rules.continuous:
        rest = sorted((x for x in seats if x not in s.finish), key=lambda x: (s.hands[x], x))
        order = tuple(s.finish) + tuple(rest)
    # The match scores players; seats map to them through the seating (T2/T3, else identity).
    p = s.seating
    # Not validated again: the referee builds these fields from its own checked state (card ids
    # from CARD_IDS, seats in range), and scoring re-checks what it relies on.
    return trusted(
        RoundResult,
        seats=tuple(p[x] for x in seats),
        winner=p[s.winner],
        finishing_order=tuple(p[x] for x in order),
        hands={p[x]: tuple(map(CARD_IDS.__getitem__, faces)) for x, faces in s.revealed.items()},
        tracked_counts={p[x]: s.hands[x] for x in seats},
        host_confirmed=confirmed,
        last_card=CARD_IDS[s.top] if s.top >= 0 else None,
        table=0,
    )


def _score_round(s: State, ev: list[Event], confirmed: bool = False) -> None:
    from table.scoring import CountMismatchError

    result = _round_result(s, confirmed)
    match = _match_so_far(s).copy()
    seat_of = {player: seat for seat, player in enumerate(s.seating)}
    try:
        rec = match.apply(result, checked=True)
    except CountMismatchError as exc:
        # Never scored silently from a hand that disagrees with the count: the host decides.
        s.held = tuple((seat_of[m.seat], m.tracked, m.revealed) for m in exc.mismatches)
        ev.append(ScoreHeld(s.round, s.held))
        return
    for m in rec.confirmed_mismatches:
        seat = seat_of[m.seat]
        s.draw_count -= m.revealed - s.hands[seat]
        s.hands[seat] = m.revealed
        ev.append(HandCountCorrected(seat, m.tracked, m.revealed, "host", "host confirmed the revealed hand"))
    s.match = match
    s.held = ("scored",)
    n = s.rules.n
    s.scores = [match.seat_totals.get(s.seating[x], 0) for x in range(n)]
    seat_points = [0] * n
    for sc in rec.scores:
        for x, p in sc.seat_points.items():
            seat_points[seat_of[x]] = p
    winner = s.winner
    ev.append(RoundScored(s.round, winner, seat_points[winner], tuple(s.scores), False, tuple(seat_points), match.config.format))
    for x in rec.eliminated:
        ev.append(SeatOut(seat_of[x], "R6", f"eliminated with {match.seat_totals[x]} points"))
    if match.over:
        s.phase = MATCH_OVER
        seats = tuple(sorted(seat_of[x] for e in match.outcome.winners for x in match.entrants[e].seats))
        ev.append(MatchEnded(seats[0] if seats else winner, tuple(s.scores), False, seats, match.outcome.ended_by or "target"))


def _confirm_score(s: State, inp: ConfirmScore, ev: list[Event]) -> None:
    if s.phase != ROUND_OVER or not s.held or s.held == ("scored",):
        return _reject(s, inp, None, "no round score is waiting for the host", ev)
    _score_round(s, ev, confirmed=True)


def _host_end_round(s: State, inp: EndRound, ev: list[Event]) -> None:
    if s.phase not in IN_ROUND and s.phase not in (FLIP, DEALER_DRAW):
        return _reject(s, inp, inp.winner, f"no round in progress ({s.phase})", ev)
    if inp.winner is None or s.phase in (FLIP, DEALER_DRAW):
        if inp.winner is not None:
            return _reject(s, inp, inp.winner, "the round has not started: it can only be voided (no winner)", ev)
        s.phase = IDLE
        s.pending = []
        s.windows = ()
        s.called = s.exposed = s.caught = s.armed = 0
        s.challenger = s.challenged = s.colour_seat = s.swap_seat = -1
        s.deferred = []
        s.held = ("void",)
        ev.append(RoundVoided(s.round, inp.reason))
        return
    winner = inp.winner
    if s.out >> winner & 1:
        return _reject(s, inp, winner, f"seat {winner} is not in this round", ev)
    if s.phase == COLOUR or s.phase == SWAP:
        s.colour_seat = s.swap_seat = -1
    s.challenger = s.challenged = -1
    s.phase = PLAY
    _flush_deferred(s, ev)
    old = s.hands[winner]
    if old:
        # The cards went somewhere the camera did not see; like a host count correction, the
        # difference goes back to the draw pile so the 108 stay accounted for.
        s.hands[winner] = 0
        s.draw_count += old
        ev.append(HandCountCorrected(winner, old, 0, "host", inp.reason))
    if s.pending:  # A5: an owed draw is still drawn before the round ends
        _resolve_pending(s, s.turn if s.turn != winner else next_seat(s, winner), ev, "owed when the round ended (A5)")
    ev.append(Notice(winner, f"host: seat {winner} went out ({inp.reason})"))
    _end_round(s, winner, ev)


def match_summary(state: State):
    """The match so far as a `table.summary.MatchSummary` (None before the first scored round)."""
    return state.match.summary() if state.match is not None else None


_HANDLERS: dict[type, Any] = {
    StartRound: _start_round,
    DealerDraw: _dealer_draw,
    Flip: _flip,
    Play: _play,
    Draw: _draw_input,
    Pass: _pass,
    NameColour: _name_colour,
    Challenge: _challenge,
    Reveal: _reveal,
    CallUno: _call_uno,
    Catch: _catch,
    SeatGesture: _gesture,
    CorrectCount: _correct_count,
    HostPenalty: _host_penalty,
    SwapHands: _swap,
    Attack: _attack,
    Tick: _tick,
    EndRound: _host_end_round,
    ConfirmScore: _confirm_score,
    _WindowPress: _window_press,
}


# --------------------------------------------------------------------------- snapshot


def snapshot(s: State) -> dict[str, Any]:
    """The dashboard's view of the game (JSON-ready)."""
    n = s.rules.n

    def seats(mask: int) -> list[int]:
        return [i for i in range(n) if mask >> i & 1]

    awaiting_reveal = None
    if s.phase == REVEAL:
        awaiting_reveal = [s.challenged]
    elif s.phase == ROUND_OVER:
        awaiting_reveal = _awaiting_reveal(s)
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
        },
        "drawn_this_turn": s.phase == DRAWN,
        "pending_draws": [p.as_dict() for p in s.pending],
        "deferred_penalties": [
            {"seat": d[0], "count": d[1], "rule": d[2], "reason": d[3]} for d in s.deferred
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
            {"window": w[0], "seat": w[1], "rule": "H10" if w[0] == "silent2" else "H11",
             "presses": [list(p) for p in w[3]] if w[0] == "slap9" else []}
            for w in s.windows
        ],
        "score_held": [list(m) for m in s.held] if s.held and s.held != ("scored",) else None,
        "match_over": s.match.over if s.match is not None else False,
        "seating": list(s.seating),
    }
