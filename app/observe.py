"""What the camera saw, turned into referee inputs.

Vision reports facts about the table (`discard`, `reveal`, `draw`, `covered` observations as
JSON, see vision/observations.py); what they mean depends on the state of the game, which
only the referee side knows. So the mapping lives here, as a pure function of the
observation and the referee's state, and vision never calls the referee.

- cards placed on the discard pile: the starter card while a deal waits for it (S3), a play
  in a round (attributed to the turn seat by the referee, marked inferred), else ignored;
- cards laid face up in the reveal zone: the hand the referee says it is
  (`table.referee.reveal_owner`: the challenged hand, W3, or the next hand to score, R1);
- a hand reaching into the draw pile: what the referee says a reach is
  (`table.referee.draw_reach`: a turn's draw, each reach of H7's drawing, the seat told to
  draw four accepting them, H13's draw until a colour), unless a draw the referee ordered
  (penalty, Draw Two, Wild Draw Four) is still to be fetched: a player taking a penalty
  reaches into the pile too, and that reach is not a new draw (the rule codes of the draws a
  seat makes itself are `table.referee.VOLUNTARY_DRAW_RULES`).
"""

from __future__ import annotations

from typing import Any

from table.cards import FACE_OF
from table.events import CardsDrawn, Event, TurnStarted
from table.referee import (
    CHALLENGE,
    FLIP,
    IN_ROUND,
    ROUND_OVER,
    VOLUNTARY_DRAW_RULES,
    State,
    draw_reach,
    reveal_owner,
)


class ObservationMapper:
    """Stateful only in what the table owes: reaches into the draw pile still expected for
    draws the referee ordered."""

    def __init__(self) -> None:
        self.owed_reaches = 0
        self._accepting = False  # a reach just accepted a Wild Draw Four (it fetched it too)
        # A hand is laid face up card by card: a stable set smaller than the tracked count is
        # held until the rest arrives, or until the zone is cleared (then it is used as is,
        # and the referee flags the count that disagrees). It is held for its seat: if that
        # hand was scored meanwhile (the host entered it), the clear belongs to no one.
        self.partial_reveal: dict[str, Any] | None = None  # {"seat", "cards", "candidates"?, "_obs"}
        # The observation the last mapped input was seen in (a held hand: where it was laid).
        self.seen_in: dict[str, Any] | None = None

    def note_events(self, events: list[Event]) -> None:
        """Feed every event the referee emits (in order)."""
        for e in events:
            if type(e) is CardsDrawn and e.rule not in VOLUNTARY_DRAW_RULES:
                if self._accepting:
                    self._accepting = False  # the reach that accepted the draw was its fetch
                    continue
                self.owed_reaches += 1
            elif type(e) is TurnStarted and self.owed_reaches > 2:
                # A table where players fetch penalties without the camera seeing it must not
                # build up a debt that swallows real draws much later.
                self.owed_reaches = 2

    def to_input(self, obs: dict[str, Any], state: State) -> tuple[dict[str, Any] | None, str]:
        """The input this observation means now, or None with the reason it means nothing."""
        kind = obs.get("type")
        phase = state.phase
        self.seen_in = obs
        meta = {"source": "camera"}
        if kind == "discard":
            seen = [c for c in obs.get("cards", []) if c["card"] != "back"]
            cards = [c["card"] for c in seen]
            if not cards:
                return None, "only card backs were placed"
            if phase == FLIP:
                return {"kind": "flip", "card": cards[-1], "confidence": obs.get("confidence"),
                        "frame": obs.get("frame"), **meta, **_candidates(seen[-1:])}, "starter card"  # fmt: skip
            if phase in IN_ROUND:
                return {"kind": "play", "cards": cards, "confidence": obs.get("confidence"),
                        "frame": obs.get("frame"), **meta, **_candidates(seen)}, "play"  # fmt: skip
            return None, f"cards placed while the game is in phase '{phase}': ignored"
        if kind == "reveal":
            seen = [c for c in obs.get("cards", []) if c["card"] != "back"]
            cards = [c["card"] for c in seen]
            meta = {**meta, **_candidates(seen)}
            owner = reveal_owner(state)  # the referee says whose hand this is
            if owner is None:
                self.partial_reveal = None
                if phase == ROUND_OVER:
                    return None, "every hand is already scored"
                return None, f"cards revealed while the game is in phase '{phase}': ignored"
            seat, purpose = owner
            if not cards:  # the zone was cleared: a hand still short of its count is used as is
                held, self.partial_reveal = self.partial_reveal, None
                if held and held["seat"] == seat:
                    self.seen_in = held.pop("_obs", obs)
                    held.pop("seat")
                    return {"kind": "reveal", "seat": seat, **held}, purpose + " (count differs)"
                if held:
                    return None, f"reveal zone cleared; seat {held['seat']}'s hand was scored meanwhile"
                return None, "reveal zone cleared"
            if len(cards) < state.hands[seat]:
                self.partial_reveal = {"seat": seat, "cards": cards, **meta, "_obs": obs}
                return None, f"{len(cards)} of seat {seat}'s {state.hands[seat]} cards laid so far"
            self.partial_reveal = None
            return {"kind": "reveal", "seat": seat, "cards": cards, **meta}, purpose
        if kind == "draw":
            if self.owed_reaches > 0:
                self.owed_reaches -= 1
                return None, "fetching a draw the referee ordered"
            draw, why = draw_reach(state)  # the referee says what the reach is
            if draw is None:
                return None, why
            if phase == CHALLENGE:
                self._accepting = True  # the reach that accepts the four fetches them too
            return {"kind": "draw", **({"seat": draw.seat} if draw.seat is not None else {}), **meta}, why
        return None, f"'{kind}' observations carry no input"


def _candidates(cards: list[dict[str, Any]]) -> dict[str, Any]:
    """{"candidates": per card its likeliest faces} when vision gave them. Only faces count
    (the classifier's card back is no answer to offer the host); a card left without any
    counts as its one face at its confidence."""
    if not any(c.get("candidates") for c in cards):
        return {}
    out = []
    for c in cards:
        faces = [[str(f), float(p)] for f, p in c.get("candidates") or () if f in FACE_OF][:3]
        out.append(faces or [[c["card"], float(c.get("confidence", 1.0))]])
    return {"candidates": out}
