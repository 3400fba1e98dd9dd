"""Section H, the house rules that change what a card or a turn does (all off unless the
rules turn them on; compiled into ``Rules`` so a rule that is off costs one test at most):

- H1/H2 stacking: ``State.pending`` is a stack of ``PendingDraw``; while it is non-empty the
  seat it points at adds a draw card (``stack_reason`` says what may go on what, H2's seed
  003 pair included) or takes it all with a draw / pass / hold (``actions.take_stack``). H3
  deflects (``actions``), H4 locks the colour after the stack is drawn (``State.lock``).
- H5 jump-in (``may_jump_in``) needs the seat named in the play; H6 multi-play
  (``multi_play_ok``) lists the cards bottom to top, the top card names the colour.
- H7 keeps the turn in DRAWN while the drawn card does not end the drawing (``until_stop``).
- H8 moves hand counts (``HandsMoved``); a 7 waits in SWAP for a ``SwapHands`` input.
- H9 red 0 = Draw Ten; H12 ``Attack`` carries its own roll, so the referee stays pure.

H10/H11 (timed seat-button windows) are in ``windows``, H13 (the spinner) in ``spin``.
"""

from __future__ import annotations

from table.cards import (
    COLOURED_RANKS,
    COLOURS,
    DRAW2,
    FACE_COLOUR,
    FACE_RANK,
    FACE_TEXT,
    REVERSE,
    SKIP,
    WILD,
    WILD_DRAW4,
)
from table.events import (
    Event,
    HandsMoved,
    LauncherFired,
    PenaltyOrdered,
    SwapNeeded,
    TurnPassed,
    TurnSkipped,
)
from table.inputs import Attack, SwapHands
from table.referee.actions import take_stack
from table.referee.common import begin_turn, draw_cards, is_playable, next_seat, reject
from table.referee.scoring import end_round
from table.referee.state import DRAWN, PLAY, SWAP, StackCard, State, Window, WindowKind
from table.referee.uno import close_uno_window, uno_recheck
from table.referee.windows import open_window


def may_jump_in(s: State, seat: int, faces: list[int]) -> bool:
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


def multi_play_ok(s: State, faces: list[int]) -> str | None:
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


def stack_reason(s: State, faces: list[int]) -> str | None:
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
            if last.card is StackCard.DRAW4:
                return "a Draw Two may not go on a Wild Draw Four (H2)"
            if last.card is StackCard.PAIR:
                return "a single Draw Two may not cover a pair of Draw Twos (H2)"
            return None if r.stack2 else f"stacking Draw Twos is off: draw {total} (H1)"
        if rank in (SKIP, REVERSE) and r.deflect and last.card is StackCard.DRAW2:
            if FACE_COLOUR[f] == s.colour:
                return None
            return f"only a {COLOURS[s.colour]} {COLOURED_RANKS[rank]} deflects this Draw Two (H3)"
    elif all(FACE_RANK[x] == DRAW2 for x in faces):
        if k == 2 and r.pair_on4 and FACE_COLOUR[faces[0]] == FACE_COLOUR[faces[1]] and last.card is not StackCard.DRAW2:
            return None
        if r.multi and r.stack2 and last.card is StackCard.DRAW2 and multi_play_ok(s, faces) is None:
            return None
    return f"{FACE_TEXT[f]} cannot answer a pending draw of {total}: add a draw card or draw {total}"


def until_stop(s: State, face: int) -> bool:
    """H7: the drawn card ends the drawing (playable; a number card with seed 002's variant or
    P6's number-only option). A Wild Draw Four may be played or drawn past (W2 is unseen)."""
    if face < 0 or face == WILD_DRAW4 or not is_playable(s, face):
        return False
    if (s.rules.until_number or s.rules.drawn_number_only) and (face >= WILD or FACE_RANK[face] >= 10):
        return False
    return True


def number_card(s: State, seat: int, face: int, rank: int, out: bool, at: float | None, ev: list[Event]) -> bool:
    """H8-H11 effects of a number card; True when it decided the next step itself."""
    r = s.rules
    if r.silent2 and rank == 2:
        open_window(s, Window(WindowKind.SILENT2, seat, at), ev)
    if r.slap9 and rank == 9:
        open_window(s, Window(WindowKind.SLAP9, seat, at), ev)
    if r.red0 and face == 0:  # red 0: the next player draws ten and loses the turn (H9)
        victim = next_seat(s, seat)
        ev.append(PenaltyOrdered(victim, 10, "H9", "red 0 is a Draw Ten"))
        draw_cards(s, victim, 10, "H9", ev)
        if out:
            end_round(s, seat, ev)
            return True
        ev.append(TurnSkipped(victim, "H9"))
        begin_turn(s, next_seat(s, victim), ev)
        return True
    if r.zero and rank == 0 and (not r.zero_current or FACE_COLOUR[face] == s.prev_colour):
        rotate_hands(s, "H8", ev)  # seed 002: even as the last card, the hands move on
        if s.hands[seat] > 0 and out:
            out = False
        if out:
            end_round(s, seat, ev)
            return True
        begin_turn(s, next_seat(s, seat), ev)
        return True
    if r.seven and rank == 7 and not out and s.hands[seat] >= 0 and not s.out >> seat & 1:
        s.phase = SWAP
        s.swap_seat = seat
        ev.append(SwapNeeded(seat))
        return True
    return False


def rotate_hands(s: State, rule: str, ev: list[Event]) -> None:
    """H8's 0 (and H13's trade-hands): every hand in the game passes to the next seat in the
    direction of play; the counts move with the hands."""
    live = [x for x in range(s.rules.n) if not s.out >> x & 1]
    old = s.hands[:]
    moves = []
    for x in live:
        to = next_seat(s, x)
        s.hands[to] = old[x]
        moves.append((x, to))
    uno_recheck(s, live)
    ev.append(HandsMoved(rule, tuple(moves), tuple(s.hands)))


def swap(s: State, inp: SwapHands, ev: list[Event]) -> None:
    if s.phase != SWAP:
        return reject(s, inp, inp.seat, "no 7 is waiting for a swap now", ev)
    seat = s.swap_seat
    if inp.seat is not None and inp.seat != seat:
        return reject(s, inp, inp.seat, f"seat {seat} played the 7 and names the swap, not seat {inp.seat}", ev)
    t = inp.target
    if t == seat or s.out >> t & 1:
        return reject(s, inp, seat, f"seat {t} cannot be swapped with: choose another seat in the game", ev)
    s.hands[seat], s.hands[t] = s.hands[t], s.hands[seat]
    uno_recheck(s, (seat, t))
    ev.append(HandsMoved("H8", ((seat, t), (t, seat)), tuple(s.hands)))
    s.swap_seat = -1
    s.phase = PLAY
    begin_turn(s, next_seat(s, seat), ev)


def attack(s: State, inp: Attack, ev: list[Event]) -> None:
    seat = s.turn if inp.seat is None else inp.seat
    if not s.rules.attack:
        return reject(s, inp, seat, "house.attack_mode is off: draw a card instead", ev)
    if s.phase != PLAY or seat != s.turn:
        return reject(s, inp, seat, f"only seat {s.turn} may press the launcher now, at the start of its turn (H12)", ev)
    s.claimable = None  # the next player acts: too late to claim the last card (H5)
    if s.exposed or s.caught:
        close_uno_window(s, ev, seat)
    if s.pending:
        return take_stack(s, seat, ev)
    count = int(inp.roll * (s.rules.attack_max + 1))
    ev.append(LauncherFired(seat, count, inp.roll))
    if count:
        draw_cards(s, seat, count, "H12", ev)
    ev.append(TurnPassed(seat, inp.seat is None))
    begin_turn(s, next_seat(s, seat), ev)
