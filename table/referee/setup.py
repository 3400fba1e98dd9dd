"""Section S: a round's setup. The host starts a round (S2: the dealer by a draw of one card
each, highest number deals; later rounds the last winner), the cards are dealt (S3) and the
starter card is turned up (S4, S5), or put back. T2's rotating partners move the players
between rounds; T3's first draw forms the teams."""

from __future__ import annotations

from table.cards import DRAW2, FACE_COLOUR, FACE_OF, FACE_RANK, REVERSE, SKIP, WILD, WILD_DRAW4
from table.events import (
    CardsDealt,
    ColourNeeded,
    DealerChosen,
    DealerDrawNeeded,
    DirectionChanged,
    Event,
    PenaltyOrdered,
    RoundStarted,
    SeatingSet,
    StarterAccepted,
    StarterReturned,
    TurnSkipped,
)
from table.inputs import DealerDraw, Flip, StartRound
from table.matches import Match
from table.referee.common import begin_turn, draw_cards, next_seat, reject, step_from
from table.referee.scoring import match_so_far
from table.referee.state import (
    COLOUR,
    DEALER_DRAW,
    DECK_SIZE,
    FLIP,
    IDLE,
    IN_ROUND,
    MATCH_OVER,
    NO_CARD,
    ROUND_OVER,
    AfterColour,
    ScoreStatus,
    State,
)
from table.teams import TeamError, draw_teams


def start_round(s: State, inp: StartRound, ev: list[Event]) -> None:
    r = s.rules
    if s.phase == MATCH_OVER:
        return reject(s, inp, None, "the match is over", ev)
    if s.phase not in (IDLE, ROUND_OVER):
        return reject(s, inp, None, f"round {s.round} is still in progress ({s.phase})", ev)
    dealer = inp.dealer
    reason = "named by the host"
    if dealer is None and s.score_status is ScoreStatus.VOID and s.dealer is not None:
        dealer, reason = s.dealer, "the voided round is dealt again by its dealer"
    elif dealer is None and s.last_winner >= 0:
        dealer, reason = s.last_winner, "winner of the last round deals"
    if dealer is None and not r.dealer_by_draw:
        return reject(s, inp, None, "setup.dealer is 'host': name the dealer to start the round", ev)
    n = r.n
    s.round += 1
    s.discard = []
    s.draw_count = DECK_SIZE
    s.hands = [0] * n
    s.called = s.exposed = s.caught = s.armed = 0
    s.pending = s.deferred = ()
    s.revealed = {}
    s.winner = -1
    s.direction = 1
    s.colour = s.top = -1
    s.drawn = NO_CARD
    s.verdicts = s.windows = s.finish = s.held = ()
    s.score_status = ScoreStatus.OPEN
    s.spin, s.spin_due = None, False
    s.claim = s.claimable = None
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
            dealer = step_from(s, dealer, 1)
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


def dealer_draw(s: State, inp: DealerDraw, ev: list[Event]) -> None:
    if s.phase != DEALER_DRAW:
        return reject(s, inp, None, "nobody is drawing for dealer now", ev)
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
        return reject(s, inp, None, "dealer draw: " + ", ".join(parts), ev)
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


def _rotate_seating(s: State, dealer: int | None, ev: list[Event]) -> int | None:
    """T2: this round's seating from the schedule; the dealer (a seat, chosen before the
    players moved) becomes the seat that player moves to."""
    match = match_so_far(s)
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
    draws = s.team_draws + (dict(inp.cards),)
    try:
        result = draw_teams(draws)
    except TeamError as exc:
        return reject(s, inp, None, f"team draw: {exc}", ev)
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


def flip(s: State, inp: Flip, ev: list[Event]) -> None:
    if s.phase != FLIP:
        return reject(s, inp, None, "the starter card is already turned up" if s.phase in IN_ROUND else "no deal is waiting for its starter card", ev)
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
    first = dealer if r.first_is_dealer else (dealer + 1) % r.n if not s.out else step_from(s, dealer, 1)
    rank = FACE_RANK[face]
    s.last_player = -1
    if rank == REVERSE and s.live > 2:
        s.direction = -1
        if r.first_reverse == "right-of-dealer":
            first = step_from(s, dealer, -1)
        elif r.first_reverse == "dealer-first":
            first = dealer
        ev.append(StarterAccepted(inp.card, first, -1, "S4"))
        ev.append(DirectionChanged(-1, "S4"))
        return begin_turn(s, first, ev)
    ev.append(StarterAccepted(inp.card, first, 1, "S4" if rank >= 10 else "S5"))
    if rank == SKIP or rank == REVERSE:  # two players: a Reverse is a Skip (A4)
        ev.append(TurnSkipped(first, "S4" if rank == SKIP else "A4"))
        return begin_turn(s, next_seat(s, first), ev)
    if rank == DRAW2:
        ev.append(PenaltyOrdered(first, 2, "S4", "the starter is a Draw Two"))
        draw_cards(s, first, 2, "S4", ev)
        ev.append(TurnSkipped(first, "S4"))
        return begin_turn(s, next_seat(s, first), ev)
    if face == WILD:
        s.turn = first
        s.phase = COLOUR
        s.colour_seat = first
        s.after_colour = AfterColour.START
        ev.append(ColourNeeded(first))
        return
    begin_turn(s, first, ev)
