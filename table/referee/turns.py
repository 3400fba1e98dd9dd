"""Section P: a turn. A card placed on the pile is checked (P1-P4, P6, H1-H6 for what may
go where), refused as an illegal play (P7: back to the hand, draw the penalty) or accepted;
an accepted card is taken from the hand count and its effect applies: a number card (H8-H11
hooks), an action card (``actions``), a wild (``wilds``). A turn's draw (P5, P6, H7) and a
pass also live here.

``accept`` is the one path of every accepted play, the official game's included: what no
house rule needs costs one attribute test at most.
"""

from __future__ import annotations

from table.cards import (
    CARD_IDS,
    COLOURS,
    FACE_COLOUR,
    FACE_OF,
    FACE_RANK,
    FACE_TEXT,
    WILD,
    WILD_DRAW4,
)
from table.events import Event, HandCountCorrected, IllegalPlay, Notice, PlayAccepted, TurnPassed
from table.inputs import Draw, Pass, Play
from table.referee import spin as spin_rule
from table.referee.actions import action_card, take_stack
from table.referee.claims import after_play, before_play
from table.referee.common import (
    begin_turn,
    current_text,
    draw_cards,
    flush_deferred,
    is_playable,
    next_seat,
    penalty,
    reject,
)
from table.referee.house import may_jump_in, multi_play_ok, number_card, stack_reason, until_stop
from table.referee.scoring import end_round, went_out
from table.referee.state import (
    CHALLENGE,
    COLOUR,
    DRAWN,
    IN_ROUND,
    PLAY,
    REVEAL,
    SPIN,
    SWAP,
    UNKNOWN_CARD,
    StackCard,
    State,
)
from table.referee.uno import close_uno_window, note_uno
from table.referee.wilds import accept_draw4, wild_played
from table.referee.windows import windows_on_play


def illegal(s: State, seat: int, inp: Play, reason: str, rule: str, inferred: bool, ev: list[Event]) -> None:
    e = IllegalPlay(seat, inp.cards, reason, rule, inferred)
    ev.append(e)
    s.verdicts = s.verdicts[-4:] + (e,)
    # P7: the card goes back to the hand (the count never dropped) and the player draws.
    penalty(s, seat, s.rules.illegal_penalty, "P7", f"illegal play: {reason}", ev)


def play(s: State, inp: Play, ev: list[Event], claims_seen: bool = False) -> None:
    """Card(s) placed on the discard pile: refused (P7) or accepted. With jump-in on, a hold
    may say whose they are (H5, ``claims``)."""
    r = s.rules
    if not r.plain and r.jump and not claims_seen:
        top = s.top
        inp = before_play(s, inp, ev)
        play(s, inp, ev, True)
        return after_play(s, inp, top, ev)
    phase = s.phase
    inferred = inp.seat is None
    seat = s.turn if inferred else inp.seat
    cards = inp.cards
    if phase == PLAY and seat == s.turn and len(cards) == 1 and (r.plain or not (s.pending or s.lock)):
        face = FACE_OF[cards[0]]
        # the common case, kept lean: one card, in turn, no draw this turn, no stack
        if face >= WILD or FACE_COLOUR[face] == s.colour or (s.top < WILD and FACE_RANK[face] == FACE_RANK[s.top]):
            return accept(s, seat, face, cards[0], inferred, ev, None, inp.at)
    if phase not in IN_ROUND:
        return reject(s, inp, seat, f"a card was placed but no round is in play ({phase})", ev)
    faces = [FACE_OF[c] for c in cards]
    if phase == COLOUR:
        return illegal(s, seat, inp, f"seat {s.colour_seat} must name the colour first", "W1", inferred, ev)
    if phase == SWAP:
        return illegal(s, seat, inp, f"seat {s.swap_seat} must name the seat to swap hands with first", "H8", inferred, ev)
    if phase == SPIN:
        return spin_rule.spin_play(s, seat, inp, faces, ev)
    if phase == CHALLENGE:
        if inferred:
            seat = s.challenger
        if seat == s.challenger and s.rules.stacking:
            reason = stack_reason(s, faces)
            if reason is not None:
                return illegal(s, seat, inp, reason, "H2", inferred, ev)
            # H2: the seat told to draw adds to the stack instead of challenging or drawing.
            # The challenged seat's deferred penalties apply once the card is on the pile (a
            # reshuffle for them keeps it on top), see accept.
            s.challenger = s.challenged = -1
            s.phase = PLAY
            return accept(s, seat, faces[-1], cards[-1], inferred, ev, faces if len(faces) > 1 else None, inp.at)
        return illegal(s, seat, inp, f"seat {s.challenger} must draw 4 or challenge first", "W3", inferred, ev)
    if phase == REVEAL:
        return illegal(s, seat, inp, f"seat {s.challenged} must lay the hand face up for the challenge first", "W3", inferred, ev)
    jump = False
    if seat != s.turn:
        if not may_jump_in(s, seat, faces):
            return illegal(s, seat, inp, f"out of turn: it is seat {s.turn}'s turn", "P1", inferred, ev)
        jump = True
    multi = faces if len(faces) > 1 else None
    if s.pending:
        reason = stack_reason(s, faces)
        if reason is not None:
            return illegal(s, seat, inp, reason, "H2" if s.pending[-1].card is not StackCard.DRAW2 else "H1", inferred, ev)
        return accept(s, seat, faces[-1], cards[-1], inferred, ev, multi, inp.at)
    if multi:
        reason = multi_play_ok(s, faces)
        if reason is not None:
            return illegal(s, seat, inp, reason, "P4" if not s.rules.multi else "H6", inferred, ev)
    face = faces[0]
    if phase == DRAWN and not jump:
        drawn = s.drawn
        if drawn >= 0 and (face != drawn or multi):
            return illegal(s, seat, inp, f"after drawing only the drawn {FACE_TEXT[drawn]} may be played", "P6", inferred, ev)
        if s.rules.drawn_number_only and (face >= WILD or FACE_RANK[face] >= 10):
            return illegal(s, seat, inp, f"after drawing only a number card may be played at once, not {FACE_TEXT[face]}", "P6", inferred, ev)
    if s.lock and not jump and face < WILD and FACE_COLOUR[face] != s.colour:
        return illegal(s, seat, inp, f"{FACE_TEXT[face]}: after the stack was drawn the next card must be {COLOURS[s.colour]} (H4)", "H4", inferred, ev)
    if not is_playable(s, face):
        rule = "P3" if s.top >= WILD else "P2"
        return illegal(s, seat, inp, f"{FACE_TEXT[face]} does not match {current_text(s)}", rule, inferred, ev)
    if jump:
        ev.append(Notice(seat, f"seat {seat} jumps in with {FACE_TEXT[face]} (H5)"))
    accept(s, seat, faces[-1], cards[-1], inferred, ev, multi, inp.at)


def accept(s: State, seat: int, face: int, card: str, inferred: bool, ev: list[Event],
           faces: list[int] | None = None, at: float | None = None) -> None:  # fmt: skip
    """A legal play: the card(s) go on the pile (the last one on top) and the effect applies
    (A1-A5, W1, W2, H1-H13). `faces`: several cards laid together (H6)."""
    hands = s.hands
    k = 1 if faces is None else len(faces)
    if hands[seat] < k:
        ev.append(HandCountCorrected(seat, hands[seat], k, "play", "cards were played from a hand counted smaller"))
        s.draw_count -= k - hands[seat]
        hands[seat] = k
    hands[seat] -= k
    if k == 1:
        s.discard.append(face)
    else:
        s.discard.extend(faces)
    s.prev_colour, s.prev_top = s.colour, s.top
    s.top = face
    s.last_player = seat
    # Accepted: this seat began its turn, which closes the previous UNO window (U2). The card
    # is already on the pile, so a reshuffle for a strict catch (U6) keeps it on top.
    if s.exposed or s.caught:
        close_uno_window(s, ev, seat)
    r = s.rules
    if not r.plain:  # with house rules: H4's lock ends; waiting penalties; timed windows
        s.prev_lock, s.lock = s.lock, False
        if s.deferred:  # a stack answered instead of a challenge (H2): they apply now
            flush_deferred(s, ev)
        if s.windows:
            windows_on_play(s, seat, at, ev)
    left = hands[seat]
    e = PlayAccepted(seat, card, left, inferred) if faces is None else PlayAccepted(seat, card, left, inferred, tuple(CARD_IDS[f] for f in faces))
    ev.append(e)
    s.verdicts = s.verdicts[-4:] + (e,)
    if left < 2 or s.armed:
        note_uno(s, seat, left, ev)
    # the seat went out: the round ends after the card's owed draw (R1, A5), unless R5 / R7
    out = left == 0 and (r.plain or went_out(s, seat, face, ev))
    if face >= WILD:
        return wild_played(s, seat, face, out, ev)
    s.colour = FACE_COLOUR[face]
    rank = FACE_RANK[face]
    if not r.plain:
        if r.spin and rank in r.spin_ranks and not out and not s.pending:
            s.spin_due = True  # H13: the next turn to begin is a spin (not a stack's deflection)
        if rank < 10 and r.number_hooks and number_card(s, seat, face, rank, out, at, ev):
            return
    if rank < 10:
        if out:
            return end_round(s, seat, ev)
        if s.out:
            return begin_turn(s, next_seat(s, seat), ev)
        return begin_turn(s, (seat + s.direction) % r.n, ev)
    action_card(s, seat, rank, faces, out, ev)


def draw_turn(s: State, inp: Draw, ev: list[Event]) -> None:
    """P5/P6: a seat drew on its own turn (H7: again, until a playable card comes); facing a
    stack, drawing takes it all (H1, H2); told to draw 4, drawing accepts it (W2)."""
    inferred = inp.seat is None
    phase = s.phase
    if phase == CHALLENGE:
        seat = s.challenger if inferred else inp.seat
        if seat == s.challenger:
            return accept_draw4(s, ev)
    if phase == SPIN:
        return spin_rule.spin_draw(s, inp, ev)
    seat = s.turn if inferred else inp.seat
    if phase not in (PLAY, DRAWN):
        return reject(s, inp, seat, f"no draw expected now ({phase})", ev)
    if seat != s.turn:
        return reject(s, inp, seat, f"seat {seat} drew out of turn (it is seat {s.turn}'s turn); penalty draws are counted automatically", ev)
    s.claimable = None  # the next player acts: too late to claim the last card (H5)
    if s.pending:  # H1/H2: drawing means taking the whole stack
        if s.exposed or s.caught:
            close_uno_window(s, ev, seat)
        return take_stack(s, seat, ev)
    if phase == DRAWN and not (s.rules.until and not until_stop(s, s.drawn)):
        return reject(s, inp, seat, "already drew this turn: play the drawn card or pass (P6)", ev)
    if phase == PLAY and s.rules.attack:
        return reject(s, inp, seat, "attack mode: press the launcher instead of drawing (H12)", ev)
    if inp.count != 1:
        return reject(s, inp, seat, f"a turn's draw is one card, not {inp.count} (P6)", ev)
    got = draw_cards(s, seat, 1, "P5" if phase == PLAY else "H7", ev, inferred=inferred, cards=inp.cards)
    s.phase = DRAWN
    s.drawn = FACE_OF[inp.cards[0]] if inp.cards and got else UNKNOWN_CARD
    # The draw began the turn (U2). The reported card is the one drawn first, so a strict
    # catch's penalty (U6) comes from the pile after it.
    if s.exposed or s.caught:
        close_uno_window(s, ev, seat)


def pass_turn(s: State, inp: Pass, ev: list[Event]) -> None:
    """P6: the turn passes after the draw (a pass without a reported draw implies one)."""
    inferred = inp.seat is None
    if s.phase == CHALLENGE and (inferred or inp.seat == s.challenger):
        return accept_draw4(s, ev)
    if s.phase == SPIN:
        return spin_rule.spin_pass(s, inp, ev)
    seat = s.turn if inferred else inp.seat
    if s.phase not in (PLAY, DRAWN):
        return reject(s, inp, seat, f"no pass expected now ({s.phase})", ev)
    if seat != s.turn:
        return reject(s, inp, seat, f"seat {seat} passed out of turn (it is seat {s.turn}'s turn)", ev)
    s.claimable = None  # the next player acts: too late to claim the last card (H5)
    if s.pending:
        if s.exposed or s.caught:
            close_uno_window(s, ev, seat)
        return take_stack(s, seat, ev)
    if s.phase == DRAWN and s.rules.until and s.drawn >= 0:
        if until_stop(s, s.drawn):
            return reject(s, inp, seat, f"draw until playable: play the drawn {FACE_TEXT[s.drawn]} (H7)", ev)
        if s.drawn != WILD_DRAW4 and (s.draw_count > 0 or len(s.discard) > 1):
            return reject(s, inp, seat, "draw until playable: keep drawing (H7)", ev)
    if s.exposed or s.caught:
        close_uno_window(s, ev, seat)
    if s.phase == PLAY:  # P5/P6: a pass means the player drew one card first
        draw_cards(s, seat, 1, "P6", ev, inferred=True)
    ev.append(TurnPassed(seat, inferred))
    begin_turn(s, next_seat(s, seat), ev)
