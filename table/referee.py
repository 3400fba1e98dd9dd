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

Issue 3 hooks: ``State.pending`` is a list of pending draws (a stack, not a flag), ``Play``
carries several cards, ``_may_jump_in`` decides out-of-turn plays, ``_multi_play_ok`` multi
placements, and ``State.windows`` holds timed seat-button windows (Silent 2, Slap 9) that
``interpret_gesture`` consults first.
"""

from __future__ import annotations

from typing import Any

from table.cards import (
    CARD_IDS,
    COLOUR_OF_NAME,
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
    IllegalPlay,
    InputRejected,
    MatchEnded,
    Notice,
    PenaltyOrdered,
    PlayAccepted,
    RevealNeeded,
    RoundEnded,
    RoundScored,
    RoundStarted,
    StarterAccepted,
    StarterReturned,
    StateRebuilt,
    TurnPassed,
    TurnSkipped,
    TurnStarted,
    UnoCalled,
    UnoCaught,
    UnoMissed,
)
from table.inputs import (
    Amend,
    CallUno,
    Catch,
    Challenge,
    CorrectCount,
    DealerDraw,
    Draw,
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
    Undo,
    parse_input,
)
from table.rules import RulesConfig

DECK_SIZE = 108

# Phases.
IDLE = "idle"  # no round yet (or between rounds: see ROUND_OVER)
DEALER_DRAW = "dealer-draw"  # S2: seats turn up a card each to choose the dealer
FLIP = "flip"  # S3/S4: waiting for the starter card
PLAY = "play"  # the turn seat plays, draws or passes
DRAWN = "drawn"  # the turn seat drew (P6): may play the drawn card or pass
COLOUR = "colour"  # a Wild was played: its player names the colour
CHALLENGE = "challenge"  # W3: the seat told to draw 4 challenges or accepts
REVEAL = "reveal"  # W3: the challenged seat lays its hand face up
ROUND_OVER = "round-over"  # a seat went out; remaining hands are revealed for scoring
MATCH_OVER = "match-over"
IN_ROUND = frozenset({PLAY, DRAWN, COLOUR, CHALLENGE, REVEAL})

NO_CARD = -1  # State.drawn: nothing drawn this turn
UNKNOWN_CARD = -2  # State.drawn: drew, face unknown (a real table)


class Rules:
    """The rules configuration compiled to plain attributes for the hot path."""

    __slots__ = (
        "config", "n", "hand_size", "illegal_penalty", "advice_penalty", "drawn_number_only",
        "wd4_no_playable", "challenge_extra", "missed", "false_call", "wrong_catch", "strict",
        "points", "target", "dealer_by_draw", "first_wild_redraw", "first_reverse",
        "flip_until_number", "first_is_dealer",
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


class PendingDraw:
    """A draw owed by `victim` (W2 now; a stack of these for H1/H2 in issue 3)."""

    __slots__ = ("count", "rule", "source", "victim")

    def __init__(self, count: int, rule: str, source: int, victim: int):
        self.count, self.rule, self.source, self.victim = count, rule, source, victim

    def as_dict(self) -> dict[str, Any]:
        return {"seat": self.victim, "count": self.count, "rule": self.rule, "from": self.source}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PendingDraw) and self.as_dict() == other.as_dict()


class State:
    """Everything the referee knows. Treat as immutable outside this module (use ``step``)."""

    __slots__ = (
        "rules", "phase", "round", "dealer", "dealer_seats", "turn", "direction", "colour",
        "top", "discard", "draw_count", "hands", "called", "exposed", "caught", "armed",
        "colour_seat", "after_colour", "prev_colour", "prev_top", "pending", "challenger",
        "challenged", "deferred", "drawn", "winner", "scores", "revealed", "verdicts",
        "windows", "turns", "seq", "history", "last_winner",
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
            [e.to_dict() for e in v] if k == "verdicts" else v
            for k in State.__slots__ if k not in ("rules", "history", "seq")
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
        return not any(f != WILD_DRAW4 and is_playable(state, f) for f in hand)
    colour = state.colour
    return not any(FACE_COLOUR[f] == colour for f in hand)


def next_seat(state: State, seat: int, steps: int = 1) -> int:
    return (seat + state.direction * steps) % state.rules.n


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
    for name in ("seat", "target", "dealer"):
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
    if dealer is None and s.last_winner >= 0:
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
    s.verdicts = ()
    ev.append(RoundStarted(s.round, dealer))
    if dealer is None:
        s.phase = DEALER_DRAW
        s.dealer_seats = tuple(range(n))
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


def _deal(s: State, ev: list[Event]) -> None:
    r = s.rules
    s.hands = [r.hand_size] * r.n
    s.draw_count = DECK_SIZE - r.hand_size * r.n
    s.phase = FLIP
    ev.append(CardsDealt(r.hand_size, r.n, s.draw_count))


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
    n = r.n
    dealer = s.dealer if s.dealer is not None else 0
    s.draw_count -= 1
    s.discard.append(face)
    s.top = face
    s.colour = FACE_COLOUR[face]
    s.direction = 1
    first = dealer if r.first_is_dealer else (dealer + 1) % n
    rank = FACE_RANK[face]
    if rank == REVERSE and n > 2:
        s.direction = -1
        if r.first_reverse == "right-of-dealer":
            first = (dealer - 1) % n
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


# ----- a turn (P), actions (A), wilds (W)


def _may_jump_in(s: State, seat: int, faces: list[int]) -> bool:
    """H5 hook (issue 3): an out-of-turn play that the rules allow."""
    return False


def _multi_play_ok(s: State, faces: list[int]) -> str | None:
    """H6 hook (issue 3): None if this multi-card placement is allowed, else the reason."""
    return "one card per turn"


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
            return _accept(s, seat, face, cards[0], inferred, ev)
    if phase not in IN_ROUND:
        return _reject(s, inp, seat, f"a card was placed but no round is in play ({phase})", ev)
    faces = [FACE_OF[c] for c in inp.cards]
    if phase == COLOUR:
        return _illegal(s, seat, inp, f"seat {s.colour_seat} must name the colour first", "W1", inferred, ev)
    if phase == CHALLENGE:
        if inferred:
            seat = s.challenger
        return _illegal(s, seat, inp, f"seat {s.challenger} must draw 4 or challenge first", "W3", inferred, ev)
    if phase == REVEAL:
        return _illegal(s, seat, inp, f"seat {s.challenged} must lay the hand face up for the challenge first", "W3", inferred, ev)
    if seat != s.turn and not _may_jump_in(s, seat, faces):
        return _illegal(s, seat, inp, f"out of turn: it is seat {s.turn}'s turn", "P1", inferred, ev)
    if len(faces) > 1:
        reason = _multi_play_ok(s, faces)
        if reason is not None:
            return _illegal(s, seat, inp, reason, "P4", inferred, ev)
    face = faces[0]
    if phase == DRAWN:
        drawn = s.drawn
        if drawn >= 0 and face != drawn:
            return _illegal(s, seat, inp, f"after drawing only the drawn {FACE_TEXT[drawn]} may be played", "P6", inferred, ev)
        if s.rules.drawn_number_only and (face >= WILD or FACE_RANK[face] >= 10):
            return _illegal(s, seat, inp, f"after drawing only a number card may be played at once, not {FACE_TEXT[face]}", "P6", inferred, ev)
    if not is_playable(s, face):
        rule = "P3" if s.top >= WILD else "P2"
        return _illegal(s, seat, inp, f"{FACE_TEXT[face]} does not match {current_text(s)}", rule, inferred, ev)
    _accept(s, seat, face, inp.cards[0], inferred, ev)


def _accept(s: State, seat: int, face: int, card: str, inferred: bool, ev: list[Event]) -> None:
    """A legal play: the card is on the pile; apply its effect (A1-A5, W1, W2)."""
    hands = s.hands
    if hands[seat] <= 0:
        ev.append(HandCountCorrected(seat, 0, 1, "play", "a card was played from a hand counted empty"))
        hands[seat] = 1
        s.draw_count -= 1
    hands[seat] -= 1
    s.discard.append(face)
    s.prev_colour, s.prev_top = s.colour, s.top
    s.top = face
    # Accepted: this seat began its turn, which closes the previous UNO window (U2). The card
    # is already on the pile, so a reshuffle for a strict catch (U6) keeps it on top.
    if s.exposed or s.caught:
        _close_uno_window(s, ev, seat)
    left = hands[seat]
    e = PlayAccepted(seat, card, left, inferred)
    ev.append(e)
    s.verdicts = s.verdicts[-4:] + (e,)
    bit = 1 << seat
    if left == 1:
        if s.armed & bit:
            s.armed &= ~bit
            s.called |= bit
            ev.append(UnoCalled(seat))
        else:
            s.exposed |= bit  # U2: catchable until the next player begins
    elif s.armed & bit:
        s.armed &= ~bit
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
        s.pending.append(PendingDraw(2, "A3" if n > 2 else "A4", seat, victim))
        _resolve_pending(s, ev, "went out on a Draw Two: the next player still draws (A5)" if left == 0 else "")
        if left == 0:
            return _end_round(s, seat, ev)
        ev.append(TurnSkipped(victim, "A3" if n > 2 else "A4"))
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


def _resolve_pending(s: State, ev: list[Event], reason: str = "") -> None:
    """Every pending draw is drawn now (with stacking off the stack never grows past one)."""
    for p in s.pending:
        why = reason or ("Draw Two" if p.rule in ("A3", "A4") else "Wild Draw Four")
        ev.append(PenaltyOrdered(p.victim, p.count, p.rule, why))
        _draw(s, p.victim, p.count, p.rule, ev)
    s.pending = []


def _name_colour(s: State, inp: NameColour, ev: list[Event]) -> None:
    if s.phase != COLOUR:
        return _reject(s, inp, inp.seat, "no colour is being named now", ev)
    seat = s.colour_seat
    if inp.seat is not None and inp.seat != seat:
        return _reject(s, inp, inp.seat, f"seat {seat} names the colour, not seat {inp.seat}", ev)
    s.colour = COLOUR_OF_NAME[inp.colour]
    ev.append(ColourNamed(seat, inp.colour, inp.seat is None))
    after = s.after_colour
    s.after_colour = ""
    s.colour_seat = -1
    if after == "start" or after == "wild":
        s.phase = PLAY  # leaves COLOUR so the deferred penalties apply now
        _flush_deferred(s, ev)
        return _begin_turn(s, seat if after == "start" else next_seat(s, seat), ev)
    victim = next_seat(s, seat)
    s.pending.append(PendingDraw(4, "W2", seat, victim))
    s.challenger, s.challenged = victim, seat
    s.phase = CHALLENGE
    _flush_deferred(s, ev)  # the challenged seat's own penalties wait for the verdict
    ev.append(ChallengeOffered(victim, seat, 4))


def _accept_draw4(s: State, ev: list[Event]) -> None:
    victim = s.challenger
    s.phase = PLAY
    _resolve_pending(s, ev)
    s.challenger = s.challenged = -1
    _flush_deferred(s, ev)
    ev.append(TurnSkipped(victim, "W2" if s.rules.n > 2 else "A4"))
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
            probe = s.copy()
            probe.colour, probe.top = s.prev_colour, s.prev_top
            bad = [f for f in faces if f != WILD_DRAW4 and is_playable(probe, f)]
            reason_ok = "no other playable card"
        else:
            bad = [f for f in faces if FACE_COLOUR[f] == prev_colour]
            reason_ok = f"no {COLOURS[prev_colour]} card" if prev_colour >= 0 else "no colour to follow"
        challenger, challenged = s.challenger, s.challenged
        s.pending = []
        s.challenger = s.challenged = -1
        s.phase = PLAY
        if bad:
            ev.append(ChallengeResolved(challenger, challenged, True, challenged, 4, f"held {FACE_TEXT[bad[0]]}"))
            ev.append(PenaltyOrdered(challenged, 4, "W3", "Wild Draw Four played illegally"))
            _draw(s, challenged, 4, "W3", ev)
        else:
            count = 4 + r.challenge_extra
            ev.append(ChallengeResolved(challenger, challenged, False, challenger, count, reason_ok))
            ev.append(PenaltyOrdered(challenger, count, "W3", "unsuccessful challenge"))
            _draw(s, challenger, count, "W3", ev)
        _flush_deferred(s, ev)
        ev.append(TurnSkipped(challenger, "W3"))
        return _begin_turn(s, next_seat(s, challenger), ev)
    if s.phase == ROUND_OVER:
        if seat == s.winner:
            return _reject(s, inp, seat, f"seat {seat} went out and has nothing to reveal", ev)
        if seat in s.revealed:
            return _reject(s, inp, seat, f"seat {seat} already revealed", ev)
        _check_count(s, seat, faces, ev)
        s.revealed[seat] = tuple(faces)
        waiting = [x for x in range(s.rules.n) if x != s.winner and x not in s.revealed and s.hands[x] > 0]
        if not waiting:
            _score_round(s, ev)
        return
    if s.phase in IN_ROUND:  # a check requested by the host: the count follows what is seen
        old = s.hands[seat]
        _check_count(s, seat, faces, ev)
        if old == len(faces):
            ev.append(Notice(seat, f"seat {seat} showed {len(faces)} cards: count confirmed"))
        return
    _reject(s, inp, seat, "no round in progress", ev)


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
    if phase == DRAWN:
        return _reject(s, inp, seat, "already drew this turn: play the drawn card or pass (P6)", ev)
    if inp.count != 1:
        return _reject(s, inp, seat, f"a turn's draw is one card, not {inp.count} (P6)", ev)
    got = _draw(s, seat, 1, "P5", ev, inferred=inferred, cards=inp.cards)
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
    if s.exposed or s.caught:
        _close_uno_window(s, ev, seat)
    if s.phase == PLAY:  # P5/P6: a pass means the player drew one card first
        _draw(s, seat, 1, "P6", ev, inferred=True)
    ev.append(TurnPassed(seat, inferred))
    _begin_turn(s, next_seat(s, seat), ev)


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
        late = bool(s.exposed & bit)
        s.exposed &= ~bit
        s.called |= bit
        return ev.append(UnoCalled(seat, late))
    if count == 2 and seat == s.turn and s.phase == PLAY:
        s.armed |= bit  # said while laying down the second-to-last card
        return ev.append(Notice(seat, f"seat {seat} calls UNO with the card about to be played"))
    ev.append(Notice(seat, f"false UNO call: seat {seat} holds {count} cards"))
    _penalty(s, seat, s.rules.false_call, "U4", f"called UNO holding {count} cards", ev)


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


# ----- end of round (R1; scoring formats beyond the standard one come with issue 3)


def _end_round(s: State, winner: int, ev: list[Event]) -> None:
    s.phase = ROUND_OVER
    s.winner = winner
    s.last_winner = winner
    s.called = s.exposed = s.caught = s.armed = 0
    s.pending = []
    ev.append(RoundEnded(s.round, winner))
    for seat in range(s.rules.n):
        if seat != winner and s.hands[seat] > 0:
            ev.append(RevealNeeded(seat, "score"))


def _score_round(s: State, ev: list[Event]) -> None:
    pts = s.rules.points
    total = sum(pts[f] for faces in s.revealed.values() for f in faces)
    s.scores[s.winner] += total
    ev.append(RoundScored(s.round, s.winner, total, tuple(s.scores)))
    if s.scores[s.winner] >= s.rules.target:
        s.phase = MATCH_OVER
        ev.append(MatchEnded(s.winner, tuple(s.scores)))


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
        awaiting_reveal = [x for x in range(n) if x != s.winner and x not in s.revealed and s.hands[x] > 0]
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
        "turns": s.turns,
    }
