"""What the camera saw, turned into referee inputs.

Vision reports facts about the table (`discard`, `reveal`, `draw`, `covered` observations as
JSON, see vision/observations.py); what they mean depends on the state of the game, which
only the referee side knows. So the mapping lives here, as a pure function of the
observation and the referee's state, and vision never calls the referee.

- cards placed on the discard pile: the starter card while a deal waits for it (S3), a play
  in a round (attributed to the turn seat by the referee, marked inferred), else ignored;
- cards laid face up in the reveal zone: the challenged hand (W3) or the next hand to score
  at the end of a round (R1), in seat order;
- a hand reaching into the draw pile: a voluntary draw by the turn seat (P5/P6, each reach of
  H7's draw until playable), unless a
  draw the referee ordered (penalty, Draw Two, Wild Draw Four) is still to be fetched: a
  player taking a penalty reaches into the pile too, and that reach is not a new draw. The
  seat told to draw four that reaches instead of challenging accepts the four.
"""

from __future__ import annotations

from typing import Any

from table.cards import FACE_OF
from table.events import CardsDrawn, Event, TurnStarted
from table.referee import CHALLENGE, DRAWN, FLIP, IN_ROUND, PLAY, REVEAL, ROUND_OVER, State

#: Voluntary draws (the player's own choice) are reported by the camera; every other
#: CardsDrawn comes from a draw the referee ordered and that the table still has to fetch.
_VOLUNTARY = {"P5", "P6", "H7"}


class ObservationMapper:
    """Stateful only in what the table owes: reaches into the draw pile still expected for
    draws the referee ordered."""

    def __init__(self) -> None:
        self.owed_reaches = 0
        self._accepting = False  # a reach just accepted a Wild Draw Four (it fetched it too)
        # A hand is laid face up card by card: a stable set smaller than the tracked count is
        # held until the rest arrives, or until the zone is cleared (then it is used as is,
        # and the referee flags the count that disagrees).
        self.partial_reveal: dict[str, Any] | None = None  # {"cards", "source", "candidates"?}
        # The observation the last mapped input was seen in (a held hand: where it was laid).
        self.seen_in: dict[str, Any] | None = None

    def note_events(self, events: list[Event]) -> None:
        """Feed every event the referee emits (in order)."""
        for e in events:
            if type(e) is CardsDrawn and e.rule not in _VOLUNTARY:
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
            if phase == REVEAL:
                seat, purpose = state.challenged, "challenge"
            elif phase == ROUND_OVER:
                waiting = [
                    x for x in range(state.rules.n)
                    if x != state.winner and x not in state.revealed and state.hands[x] > 0
                ]  # fmt: skip
                if not waiting:
                    self.partial_reveal = None
                    return None, "every hand is already scored"
                seat, purpose = waiting[0], "scoring"
            else:
                self.partial_reveal = None
                return None, f"cards revealed while the game is in phase '{phase}': ignored"
            if not cards:  # the zone was cleared: a hand still short of its count is used as is
                held, self.partial_reveal = self.partial_reveal, None
                if held:
                    self.seen_in = held.pop("_obs", obs)
                    return {"kind": "reveal", "seat": seat, **held}, purpose + " (count differs)"
                return None, "reveal zone cleared"
            if len(cards) < state.hands[seat]:
                self.partial_reveal = {"cards": cards, **meta, "_obs": obs}
                return None, f"{len(cards)} of seat {seat}'s {state.hands[seat]} cards laid so far"
            self.partial_reveal = None
            return {"kind": "reveal", "seat": seat, "cards": cards, **meta}, purpose
        if kind == "draw":
            if self.owed_reaches > 0:
                self.owed_reaches -= 1
                return None, "fetching a draw the referee ordered"
            if phase == CHALLENGE and state.challenger >= 0:
                # The seat told to draw four reaches for them: no challenge, it draws (W2).
                self._accepting = True
                return {"kind": "draw", "seat": state.challenger, **meta}, "draws the Wild Draw Four (no challenge)"
            if phase == PLAY or (phase == DRAWN and state.rules.until):
                # H7: drawing until playable is one reach per card, the turn staying in DRAWN.
                return {"kind": "draw", **meta}, "voluntary draw (inferred)"
            return None, f"a reach into the draw pile in phase '{phase}': ignored"
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
