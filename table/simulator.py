"""Full-information simulation: real hands from a seeded shuffle, seats played by simple
policies, every move fed to the same referee through the same inputs a real table sends.

It is the test bed for the property tests and the source of the demo game: `SimGame.inputs`
is what the camera, buttons and phones would report, and `SimGame.truth` (when recording)
says what really happened at each input (who played what, true hand sizes, forgotten UNO
calls). True hands are exposed (`hands`) so the reveal for challenges and end-of-round
scoring is produced from them.

With house rules on, the simulated players use them (rates in `SimOptions`): they add to a
pending stack or deflect it (H1-H3), jump in with the top card's twin (H5, the seat named in
the play), play all cards of a rank or an identical pair (H6), keep drawing (H7), name the
seat with the fewest cards for a 7 (H8), press the launcher with a seeded roll (H12), make a
sound during Silent 2 and slap a 9 with reaction times, sometimes never (a tick closes the
window, H10/H11). `simulate_match` plays a whole match through one referee state.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from table.cards import (
    CARD_IDS,
    COLOURS,
    DRAW2,
    FACE_COLOUR,
    FACE_RANK,
    WILD,
    WILD_DRAW4,
    deck_faces,
)
from table.events import (
    CardsDrawn,
    ChallengeResolved,
    DeckReshuffled,
    Event,
    HandsMoved,
    IllegalPlay,
    ScoreHeld,
    StarterReturned,
)
from table.inputs import (
    Attack,
    Challenge,
    DealerDraw,
    Draw,
    Flip,
    Input,
    NameColour,
    Pass,
    Play,
    Reveal,
    SeatGesture,
    Spin,
    StartRound,
    SwapHands,
    Tick,
)
from table.log import MemoryLog
from table.referee import (
    CHALLENGE,
    COLOUR,
    DEALER_DRAW,
    DRAWN,
    FLIP,
    MATCH_OVER,
    PLAY,
    REVEAL,
    ROUND_OVER,
    SPIN,
    SWAP,
    Rules,
    SpinOutcome,
    State,
    WindowKind,
    advance,
    is_playable,
    may_jump_in,
    stack_reason,
    until_stop,
    wild_draw4_allowed,
)
from table.rules import RulesConfig

POLICIES = ("random", "greedy")
_DECK = deck_faces()
#: The faces playable on (current colour, top card's rank; -1: none to match), P2/P3/W1.
_PLAYABLE: dict[tuple[int, int], frozenset[int]] = {
    (c, rank): frozenset(f for f in range(WILD_DRAW4 + 1) if f >= WILD or FACE_COLOUR[f] == c or FACE_RANK[f] == rank)
    for c in range(-1, 4) for rank in range(-1, 13)
}  # fmt: skip
_WATCHED = frozenset({CardsDrawn, DeckReshuffled, IllegalPlay, ChallengeResolved, HandsMoved, ScoreHeld})


@dataclass
class SimOptions:
    """Behaviour of the simulated players (rates are probabilities per occasion)."""

    policies: tuple[str, ...] = ("random",)
    forget_uno: float = 0.0  # a player with one card left forgets to press
    catch_rate: float = 0.5  # someone notices a forgotten call and double-presses
    challenge_rate: float = 0.3  # the seat told to draw 4 challenges
    bluff_rate: float = 0.0  # a player plays a Wild Draw Four illegally when it could
    voluntary_draw: float = 0.0  # a player with a playable card draws anyway (P5)
    max_inputs: int = 20000  # a round longer than this is stopped and reported
    # House rules (used only when the rules turn them on):
    stack_rate: float = 0.8  # a seat facing a pending draw adds to it when it can (H1-H3)
    jump_rate: float = 0.5  # a seat holding the top card's twin jumps in (H5)
    multi_rate: float = 0.7  # a seat plays all its cards of the chosen rank at once (H6)
    sound_rate: float = 0.03  # during Silent 2, some seat makes a sound on an occasion (H10)
    slow_slap: float = 0.05  # during Slap 9, a seat never presses (closed by a tick, H11)

@dataclass
class SimGame:
    """One simulated round: the inputs in order, and (when recorded) the truth behind each."""

    inputs: list[Input] = field(default_factory=list)
    events: list[list[Event]] = field(default_factory=list)
    truth: list[dict[str, Any]] = field(default_factory=list)
    turns: int = 0
    winner: int = -1
    capped: bool = False


class Simulator:
    """Deals and plays rounds against a referee state. ``feed`` can also send each input to
    a log (``on_input``, called BEFORE the referee applies it, like the real table)."""

    def __init__(
        self,
        config: RulesConfig | Rules,
        seed: int = 0,
        options: SimOptions | None = None,
        on_input: Callable[[Input], None] | None = None,
        record: bool = False,
    ):
        self.rules = config if isinstance(config, Rules) else Rules(config)
        self._slap9 = self.rules.slap9
        self.n = self.rules.n
        self.rng = random.Random(seed)
        self.opt = options or SimOptions()
        pol = self.opt.policies
        for p in pol:
            if p not in POLICIES:
                raise ValueError(f"unknown policy {p!r}: choose from {', '.join(POLICIES)}")
        self.policies = tuple(pol[i % len(pol)] for i in range(self.n))
        self.on_input = on_input
        self.record = record
        self.state = State(self.rules)
        self.hands: list[list[int]] = [[] for _ in range(self.n)]
        self.pile: list[int] = []  # the physical draw pile, top = last
        self.discard: list[int] = []
        self.clock = 0.0
        self.game = SimGame()
        self._reshuffled_early = False
        self._wd4_bluff = False
        self._drawn_face = -1

    # ----- physical world

    def _shuffle(self, cards: list[int]) -> None:
        # Sorting by random keys: unbiased and ~10x faster than random.shuffle's Python loop.
        rnd = self.rng.random
        cards.sort(key=lambda _card: rnd())

    def _reshuffle(self) -> None:
        # The referee announces the reshuffle before the draw that needs it, so cards still
        # on the old pile (drawn first, they are on top) stay above the reshuffled ones.
        fresh = self.discard[:-1]
        self._shuffle(fresh)
        self.pile = fresh + self.pile
        del self.discard[:-1]

    def _take(self, seat: int, count: int) -> None:
        hand = self.hands[seat]
        pile = self.pile
        for _ in range(count):
            hand.append(pile.pop())

    def feed(self, inp: Input, truth: dict[str, Any] | None = None) -> list[Event]:
        if self.on_input is not None:
            self.on_input(inp)
        events = advance(self.state, inp)
        game = self.game
        game.inputs.append(inp)
        if self.record:
            game.events.append(events)
            info = dict(truth or {})
            info["hand_sizes"] = [len(h) for h in self.hands]
            game.truth.append(info)
        for e in events:
            t = type(e)
            if t not in _WATCHED:
                continue
            if t is CardsDrawn:
                if e.cards is None:  # a draw the player reported came with its cards, taken already
                    self._take(e.seat, e.count)
            elif t is DeckReshuffled:
                if self._reshuffled_early:
                    self._reshuffled_early = False
                else:
                    self._reshuffle()
            elif t is IllegalPlay:
                raise AssertionError(f"simulated player made an illegal play: {e.text()}")
            elif t is ChallengeResolved and e.guilty != self._wd4_bluff:
                raise AssertionError(f"challenge verdict contradicts the true hand: {e.text()}")
            elif t is HandsMoved:  # H8: the real hands move as the referee's counts did
                old = [h for h in self.hands]
                for a, b in e.moves:
                    self.hands[b] = old[a]
            elif t is ScoreHeld:
                raise AssertionError(f"revealed hands disagree with the referee's counts: {e.text()}")
        return events

    # ----- a round

    def play_round(self, dealer: int | None = None) -> SimGame:
        self.game = SimGame()
        st = self.state
        rng = self.rng
        self.feed(StartRound(dealer=dealer))
        while st.phase == DEALER_DRAW:
            cards = rng.sample(_DECK, len(st.dealer_seats))
            self.feed(DealerDraw({s: CARD_IDS[cards[i]] for i, s in enumerate(st.dealer_seats)}))
        self.pile = _DECK[:]
        self._shuffle(self.pile)
        self.discard = []
        hs = self.rules.hand_size
        out = st.out
        self.hands = [[] if out >> x & 1 else [self.pile.pop() for _ in range(hs)] for x in range(self.n)]
        while st.phase == FLIP:
            face = self.pile.pop()
            self.discard.append(face)
            events = self.feed(Flip(CARD_IDS[face]))
            if any(type(e) is StarterReturned for e in events):
                self.discard.pop()
                self.pile.append(face)
                self._shuffle(self.pile)
        limit = self.opt.max_inputs
        while st.phase != ROUND_OVER and st.phase != MATCH_OVER:
            if len(self.game.inputs) >= limit:
                self.game.capped = True
                break
            self._act()
        if st.phase == ROUND_OVER:
            self.game.winner = st.winner
            for seat in range(self.n):
                if seat != st.winner and self.hands[seat]:
                    self.feed(Reveal(seat=seat, cards=tuple(CARD_IDS[f] for f in self.hands[seat])))
        self.game.turns = st.turns
        return self.game

    def _press(self, seat: int, gesture: str) -> list[Event]:
        self.clock += 0.5
        return self.feed(
            SeatGesture(seat=seat, gesture=gesture, at=self.clock), {"seat": seat} if self.record else None
        )

    def _act(self) -> None:
        st = self.state
        phase = st.phase
        rng = self.rng
        opt = self.opt
        r = self.rules
        if phase == PLAY and r.plain:  # the official game's turn, kept lean
            seat = st.turn
            hand = self.hands[seat]
            # is_playable as a table lookup: this line runs for every turn of every simulated game
            playable = _PLAYABLE[st.colour, FACE_RANK[st.top] if st.top < WILD else -1]
            legal = [f for f in hand if f in playable]
            if legal and WILD_DRAW4 in legal and not wild_draw4_allowed(st, hand):
                if not (opt.bluff_rate and rng.random() < opt.bluff_rate):
                    legal = [f for f in legal if f != WILD_DRAW4]
            if legal and not (opt.voluntary_draw and rng.random() < opt.voluntary_draw):
                self._play(seat, self._choose(seat, legal))
            else:
                self._draw(seat)
            return
        if st.windows and r.silent2 and opt.sound_rate and rng.random() < opt.sound_rate:
            if any(w.kind is WindowKind.SILENT2 for w in st.windows):
                self._press(self._random_live(), "press")  # someone made a sound (H10)
                return
        if phase == PLAY:
            seat = st.turn
            if r.jump and opt.jump_rate and self._try_jump_in():
                return
            hand = self.hands[seat]
            if st.pending:
                return self._answer_stack(seat, hand)
            playable = _PLAYABLE[st.colour, FACE_RANK[st.top] if st.top < WILD and not st.lock else -1]
            legal = [f for f in hand if f in playable]
            if legal and WILD_DRAW4 in legal and not wild_draw4_allowed(st, hand):
                if not (opt.bluff_rate and rng.random() < opt.bluff_rate):
                    legal = [f for f in legal if f != WILD_DRAW4]
            if legal and not (opt.voluntary_draw and rng.random() < opt.voluntary_draw):
                face = self._choose(seat, legal)
                if r.multi and face < WILD:
                    return self._play_many(seat, face)
                self._play(seat, face)
            elif r.attack:
                self.clock += 0.5
                self.feed(Attack(roll=rng.random()), {"seat": seat})
            else:
                self._draw(seat)
        elif phase == DRAWN:
            seat = st.turn
            face = self._drawn_face
            ok = is_playable(st, face) and not (st.lock and face < WILD and FACE_COLOUR[face] != st.colour)
            if ok and st.rules.drawn_number_only and (face >= WILD or FACE_RANK[face] >= 10):
                ok = False
            if ok and face == WILD_DRAW4 and not wild_draw4_allowed(st, self.hands[seat]):
                ok = False
            if ok:
                self._play(seat, face)
            elif r.until and not until_stop(st, face) and (self.pile or len(self.discard) > 1):
                self._draw(seat)  # H7: keep drawing
            else:
                self._press(seat, "hold")  # pass after drawing
        elif phase == COLOUR:
            seat = st.colour_seat
            self.clock += 0.5
            self.feed(NameColour(colour=self._best_colour(seat)), {"seat": seat})
        elif phase == CHALLENGE:
            seat = st.challenger
            if r.stacking and self._stack_choice(seat, self.hands[seat]) is not None and rng.random() < opt.stack_rate:
                return self._answer_stack(seat, self.hands[seat])
            if opt.challenge_rate and rng.random() < opt.challenge_rate:
                self._press(seat, "press")
            else:
                self.feed(Challenge(seat=seat, challenge=False), {"seat": seat})
        elif phase == REVEAL:
            seat = st.challenged
            self.feed(Reveal(seat=seat, cards=tuple(CARD_IDS[f] for f in self.hands[seat])), {"seat": seat})
        elif phase == SPIN:
            self._spin()
        elif phase == SWAP:
            seat = st.swap_seat
            # H8: swap with the seat holding the fewest cards (ties: the nearest seat number)
            others = [x for x in range(self.n) if x != seat and not st.out >> x & 1]
            target = min(others, key=lambda x: (len(self.hands[x]), x))
            self.clock += 0.5
            self.feed(SwapHands(target=target), {"seat": seat})
        else:  # pragma: no cover - the loop only calls in a round
            raise AssertionError(f"simulator stuck in phase {phase}")

    def _random_live(self) -> int:
        st = self.state
        live = [x for x in range(self.n) if not st.out >> x & 1]
        return live[int(self.rng.random() * len(live))]

    def _try_jump_in(self) -> bool:
        """H5: a seat (not the turn seat) holding the top card's twin jumps in."""
        st = self.state
        top = st.top
        if top < 0 or self.rng.random() >= self.opt.jump_rate:
            return False
        for x in range(self.n):
            if x == st.turn or top not in self.hands[x]:
                continue
            if not may_jump_in(st, x, [top]):
                continue
            if top == WILD_DRAW4 and not wild_draw4_allowed(st, self.hands[x]):
                continue
            self._play(x, top, explicit=True)
            return True
        return False

    def _stack_choice(self, seat: int, hand: list[int]) -> list[int] | None:
        st = self.state
        for f in hand:
            if f == WILD_DRAW4 and not wild_draw4_allowed(st, hand):
                continue
            if stack_reason(st, [f]) is None:
                return [f]
        if self.rules.pair_on4:
            for f in hand:
                if FACE_RANK[f] == DRAW2 and hand.count(f) >= 2 and stack_reason(st, [f, f]) is None:
                    return [f, f]
        return None

    def _answer_stack(self, seat: int, hand: list[int]) -> None:
        """Facing a pending draw: add to it (H1-H3) or draw it all."""
        choice = self._stack_choice(seat, hand)
        if choice is not None and self.rng.random() < self.opt.stack_rate:
            return self._play_cards(seat, choice, explicit=True)
        self.clock += 0.5
        self.feed(Draw(seat=seat), {"seat": seat})

    def _play_many(self, seat: int, face: int) -> None:
        """H6: play every card of the chosen rank (same-rank), or an identical pair."""
        hand = self.hands[seat]
        mode = self.rules.multi
        if mode == "same-rank":
            group = [f for f in hand if f < WILD and FACE_RANK[f] == FACE_RANK[face] and f != face]
        else:
            group = [face] if hand.count(face) >= 2 else []
        if not group or self.rng.random() >= self.opt.multi_rate:
            return self._play(seat, face)
        # The chosen (playable) card goes at the bottom; the top card's colour is the pick.
        self._play_cards(seat, [face] + group[:3])

    def _choose(self, seat: int, legal: list[int]) -> int:
        if self.policies[seat] == "random" or len(legal) == 1:
            return legal[int(self.rng.random() * len(legal))]
        # greedy: shed the most points first, wild cards last (they always fit later)
        return max(legal, key=lambda f: (f < WILD, FACE_RANK[f] if f < WILD else 0))

    def _best_colour(self, seat: int) -> str:
        counts = [0, 0, 0, 0]
        for f in self.hands[seat]:
            c = FACE_COLOUR[f]
            if c >= 0:
                counts[c] += 1
        return COLOURS[counts.index(max(counts))]

    def _play(self, seat: int, face: int, explicit: bool = False) -> None:
        if explicit or self._slap9:
            return self._play_cards(seat, [face], explicit)
        # one card by the turn seat: the lean path (every turn of every simulated game)
        hand = self.hands[seat]
        if face == WILD_DRAW4:  # the truth a challenge must find (checked in feed)
            self._wd4_bluff = not wild_draw4_allowed(self.state, hand)
        hand.remove(face)
        self.discard.append(face)
        self.clock += 1.0
        self.feed(Play(cards=(CARD_IDS[face],)), {"seat": seat, "card": CARD_IDS[face]} if self.record else None)
        if len(hand) == 1:
            self._after_one_left(seat, len(self.game.truth) - 1)

    def _play_cards(self, seat: int, faces: list[int], explicit: bool = False) -> None:
        """Place `faces` (bottom to top). `explicit`: the seat is reported (a jump-in, or a
        seat answering a stack), otherwise the referee infers the turn seat."""
        hand = self.hands[seat]
        if WILD_DRAW4 in faces:  # the truth a challenge must find (checked in feed)
            self._wd4_bluff = not wild_draw4_allowed(self.state, hand)
        for f in faces:
            hand.remove(f)
        self.discard.extend(faces)
        self.clock += 1.0
        cards = tuple(CARD_IDS[f] for f in faces)
        at = self.clock if self.rules.slap9 else None
        self.feed(
            Play(cards=cards, seat=seat if explicit else None, at=at),
            {"seat": seat, "card": cards[-1]} if self.record else None,
        )
        played_at = len(self.game.truth) - 1
        st = self.state
        if st.windows:
            self._slap(at)
        if len(hand) == 1:
            self._after_one_left(seat, played_at)

    def _after_one_left(self, seat: int, played_at: int) -> None:
        opt = self.opt
        forgot = bool(opt.forget_uno) and self.rng.random() < opt.forget_uno
        if not forgot:
            self._press(seat, "press")
        elif opt.catch_rate and self.rng.random() < opt.catch_rate:
            catcher = (seat + 1 + self.rng.randrange(self.n - 1)) % self.n
            self._press(catcher, "double")
        if self.record:
            self.game.truth[played_at]["forgot_uno"] = forgot

    def _slap(self, start: float | None) -> None:
        """H11: every seat in the game slaps the 9 after its own reaction time; a slow seat
        may never press, and the table clock (a tick) closes the window."""
        st = self.state
        if not any(w.kind is WindowKind.SLAP9 and not w.presses for w in st.windows):
            return
        rng = self.rng
        t0 = self.clock if start is None else start
        presses = []
        for x in range(self.n):
            if st.out >> x & 1:
                continue
            if self.opt.slow_slap and rng.random() < self.opt.slow_slap:
                continue
            presses.append((t0 + 0.15 + rng.random(), x))
        presses.sort()
        for t, x in presses:
            self.feed(SeatGesture(seat=x, gesture="press", at=t), {"seat": x} if self.record else None)
        self.clock = max([t0] + [t for t, _ in presses]) + 0.1
        if any(w.kind is WindowKind.SLAP9 for w in st.windows):
            self.clock = t0 + self.rules.slap_limit + 0.5
            self.feed(Tick(at=self.clock))

    def _spin(self) -> None:
        """H13: spin the wheel with a seeded roll, then do what it says: draw until the
        colour comes (each card reported), or lay down every card but two (the most points
        first; a wild on top is named like any wild)."""
        st = self.state
        sp = st.spin
        seat = sp.seat
        if sp.outcome is None:
            self.clock += 0.5
            # the seat spins; the roll is the table's random draw, the referee reads the wheel
            self.feed(Spin(roll=self.rng.random(), seat=seat), {"seat": seat})
            return
        hand = self.hands[seat]
        if sp.outcome is SpinOutcome.DRAW_UNTIL_COLOUR:
            if not self.pile:
                if len(self.discard) <= 1:
                    self._press(seat, "hold")  # nothing left to draw: the spin is over
                    return
                self._reshuffle()
                self._reshuffled_early = True
            face = self.pile.pop()
            hand.append(face)
            self.clock += 0.5
            self.feed(Draw(cards=(CARD_IDS[face],)), {"seat": seat, "card": CARD_IDS[face]})
            return
        keep = sorted(hand, key=lambda f: (f >= WILD, FACE_RANK[f] if f < WILD else 0))[:2]
        down = list(hand)
        for f in keep:
            down.remove(f)
        self._play_cards(seat, down)

    def _draw(self, seat: int) -> None:
        if not self.pile:
            if len(self.discard) <= 1:
                # nothing to draw at all: pass (a Pass, not a hold, which may claim a twin, H5)
                self.clock += 0.5
                self.feed(Pass(seat=seat), {"seat": seat})
                return
            self._reshuffle()
            self._reshuffled_early = True
        face = self.pile.pop()
        self.hands[seat].append(face)
        self._drawn_face = face
        self.feed(Draw(cards=(CARD_IDS[face],)), {"seat": seat, "card": CARD_IDS[face]})


def simulate(
    config: RulesConfig,
    games: int,
    seed: int = 0,
    options: SimOptions | None = None,
    progress: bool = False,
) -> dict[str, Any]:
    """Play `games` independent rounds (a game = one round, as in RLCard) and time them."""
    turns = 0
    inputs = 0
    capped = 0
    wins = [0] * config.players
    iterator = range(games)
    if progress:
        from tqdm import tqdm

        iterator = tqdm(iterator, desc="simulating", unit="game")
    t0 = time.perf_counter()
    rules = Rules(config)
    for g in iterator:
        # Every input is logged in memory before the referee applies it, as at the table.
        log = MemoryLog(config)
        sim = Simulator(rules, seed=seed * 1_000_003 + g, options=options, on_input=log.append)
        game = sim.play_round()
        turns += game.turns
        inputs += len(game.inputs)
        capped += game.capped
        if game.winner >= 0:
            wins[game.winner] += 1
    dt = time.perf_counter() - t0
    return {
        "games": games,
        "players": config.players,
        "preset": config.name,
        "seed": seed,
        "seconds": round(dt, 4),
        "games_per_s": round(games / dt, 1) if dt > 0 else None,
        "turns_per_game": round(turns / games, 2) if games else 0,
        "inputs_per_game": round(inputs / games, 2) if games else 0,
        "inputs_per_s": round(inputs / dt, 1) if dt > 0 else None,
        "capped_games": capped,
        "wins_by_seat": wins,
    }


def simulate_match(
    config: RulesConfig,
    seed: int = 0,
    options: SimOptions | None = None,
    max_rounds: int = 1000,
) -> dict[str, Any]:
    """Play one whole match (rounds until the match format says it is over, R2-R6) with one
    referee state, every round scored from the revealed true hands through table.matches.
    A match still running after `max_rounds` rounds is stopped and reported as capped."""
    t0 = time.perf_counter()
    sim = Simulator(config, seed=seed, options=options)
    rounds = 0
    capped_rounds = 0
    inputs = 0
    while sim.state.phase != MATCH_OVER and rounds < max_rounds:
        game = sim.play_round()
        rounds += 1
        inputs += len(game.inputs)
        if game.capped:
            capped_rounds += 1
            break
    dt = time.perf_counter() - t0
    st = sim.state
    summary = st.match.summary() if st.match is not None else None
    return {
        "preset": config.name,
        "players": config.players,
        "seed": seed,
        "rounds": rounds,
        "inputs": inputs,
        "seconds": round(dt, 4),
        "over": st.phase == MATCH_OVER,
        "capped": st.phase != MATCH_OVER,
        "capped_rounds": capped_rounds,
        "summary": summary,
    }
