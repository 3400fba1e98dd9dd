"""Section R (and T1): going out, the end of a round, the reveal of the hands left and the
score through ``table.matches`` (R2-R6), R5's continuous rounds, R6's eliminations, R7's
last action card.

A revealed hand whose size disagrees with the tracked count holds the score
(``ScoreStatus.HELD``, ``State.held``) until the seat reveals again or the host sends
``confirm_score``. R5 continuous rounds and R6 eliminations take seats out of the rotation
(``State.out``).
"""

from __future__ import annotations

from table.cards import CARD_IDS, FACE_RANK, FACE_TEXT, WILD
from table.events import (
    Event,
    HandCountCorrected,
    MatchEnded,
    PenaltyOrdered,
    RevealNeeded,
    RoundEnded,
    RoundScored,
    ScoreHeld,
    SeatOut,
)
from table.inputs import ConfirmScore, Reveal
from table.matches import Match
from table.referee.common import draw_cards, reject
from table.referee.state import (
    MATCH_OVER,
    ROUND_OVER,
    DeferredPenalty,
    HeldCount,
    ScoreStatus,
    State,
)
from table.referee.windows import close_all
from table.scoring import CountMismatchError, RoundResult, trusted


def went_out(s: State, seat: int, face: int, ev: list[Event]) -> bool:
    """`seat` played its last card `face`: True when that ends the round (R1). R7: a last
    action or wild card draws one more card instead; R5: in a continuous round the seat
    leaves the rotation and play goes on."""
    r = s.rules
    if r.last_card_draw and (face >= WILD or FACE_RANK[face] >= 10):
        why = f"the last card may not be {FACE_TEXT[face]}: draw one more"
        s.called |= 1 << seat  # the forced draw is not a missed UNO call
        if face >= WILD:  # after the colour (and a challenge, which judges the hand as played)
            s.deferred = s.deferred + (DeferredPenalty(seat, 1, "R7", why),)
        else:
            ev.append(PenaltyOrdered(seat, 1, "R7", why))
            draw_cards(s, seat, 1, "R7", ev)
        return False
    if r.continuous and s.live > 2:
        seat_finished(s, seat, ev)  # R5: play goes on without this seat
        return False
    return True


def seat_finished(s: State, seat: int, ev: list[Event]) -> None:
    s.out |= 1 << seat
    s.live -= 1
    s.finish = s.finish + (seat,)
    bit = ~(1 << seat)
    s.called &= bit
    s.exposed &= bit
    ev.append(SeatOut(seat, "R5", f"went out in place {len(s.finish)}"))


def awaiting_reveal(s: State) -> list[int]:
    """R1: the seats whose hands are still to be laid face up for the score, in seat order."""
    return [x for x in range(s.rules.n) if x != s.winner and x not in s.revealed and s.hands[x] > 0]


def end_round(s: State, winner: int, ev: list[Event]) -> None:
    s.phase = ROUND_OVER
    s.winner = winner
    s.last_winner = winner
    s.called = s.exposed = s.caught = s.armed = 0
    s.pending = ()
    s.lock = False
    s.spin_due = False
    s.spin = None
    if s.rules.continuous:
        s.finish = s.finish + (winner,)
    close_all(s, "the round is over", ev)
    first = s.finish[0] if s.finish else winner
    ev.append(RoundEnded(s.round, first))
    s.winner = first
    waiting = awaiting_reveal(s)
    for seat in waiting:
        ev.append(RevealNeeded(seat, "score"))
    if not waiting:
        score_round(s, ev)


def reveal_for_score(s: State, inp: Reveal, faces: list[int], ev: list[Event]) -> None:
    """R1: a hand laid face up after the round; the last one scores the round."""
    seat = inp.seat
    if seat == s.winner:
        return reject(s, inp, seat, f"seat {seat} went out and has nothing to reveal", ev)
    if seat in s.revealed and s.score_status is not ScoreStatus.HELD:
        return reject(s, inp, seat, f"seat {seat} already revealed", ev)
    if s.hands[seat] == 0 and seat not in s.revealed:
        return reject(s, inp, seat, f"seat {seat} holds no cards", ev)
    s.revealed[seat] = tuple(faces)  # a re-reveal while the score is held replaces it
    s.score_status, s.held = ScoreStatus.OPEN, ()
    if not awaiting_reveal(s):
        score_round(s, ev)


def match_so_far(s: State) -> Match:
    r = s.rules
    if s.match is None and r.empty_match is None:
        r.empty_match = Match(r.match_config)  # built once per rule set, copied per match
    return s.match if s.match is not None else r.empty_match


def _round_result(s: State, confirmed: bool) -> RoundResult:
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


def score_round(s: State, ev: list[Event], confirmed: bool = False) -> None:
    result = _round_result(s, confirmed)
    match = match_so_far(s).copy()
    seat_of = {player: seat for seat, player in enumerate(s.seating)}
    try:
        rec = match.apply(result, checked=True)
    except CountMismatchError as exc:
        # Never scored silently from a hand that disagrees with the count: the host decides.
        s.score_status = ScoreStatus.HELD
        s.held = tuple(HeldCount(seat_of[m.seat], m.tracked, m.revealed) for m in exc.mismatches)
        ev.append(ScoreHeld(s.round, tuple((h.seat, h.tracked, h.revealed) for h in s.held)))
        return
    for m in rec.confirmed_mismatches:
        seat = seat_of[m.seat]
        s.draw_count -= m.revealed - s.hands[seat]
        s.hands[seat] = m.revealed
        ev.append(HandCountCorrected(seat, m.tracked, m.revealed, "host", "host confirmed the revealed hand"))
    s.match = match
    s.score_status, s.held = ScoreStatus.SCORED, ()
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


def confirm_score(s: State, inp: ConfirmScore, ev: list[Event]) -> None:
    if s.phase != ROUND_OVER or s.score_status is not ScoreStatus.HELD:
        return reject(s, inp, None, "no round score is waiting for the host", ev)
    score_round(s, ev, confirmed=True)


def match_summary(state: State):
    """The match so far as a `table.summary.MatchSummary` (None before the first scored round)."""
    return state.match.summary() if state.match is not None else None
