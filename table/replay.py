"""Replay: the state is a fold of the referee over the logged inputs.

The one place a log of inputs becomes a state: the referee's own undo / amend, the event
log opened from disk (``table.log``), the hub and the demo driver all call ``replay``. A host
correction is an entry of its own: ``Undo`` withdraws an earlier entry, ``Amend`` replaces
one; ``effective_inputs`` says which inputs are in force, and the fold applies only those,
so a log of n entries replays in one pass.
"""

from __future__ import annotations

from collections.abc import Sequence

from table.inputs import Amend, Input, InputError, Undo, parse_input
from table.referee.claims import claim_after, claimed
from table.referee.core import apply, check_input
from table.referee.state import Rules, State
from table.rules import RulesConfig


class ReplayError(InputError):
    """A logged entry that cannot be replayed (a damaged or hand-edited log); `seq` is its
    1-based position in the log."""

    def __init__(self, seq: int, reason: str):
        super().__init__(f"entry {seq} cannot be replayed: {reason}")
        self.seq = seq


def _entries(inputs: Sequence[Input], check: bool) -> list[tuple[int, Input]]:
    """(1-based log position, input) of the game inputs in force after every Undo / Amend."""
    entries: list[list] = []  # [position, input, alive]
    for seq, inp in enumerate(inputs, 1):
        if isinstance(inp, (Undo, Amend)):
            target = inp.target
            if check and target is not None and (
                not 1 <= target < seq or isinstance(inputs[target - 1], (Undo, Amend))
            ):
                raise ReplayError(seq, f"{inp.kind} of entry {target}, which is not a game input before it")
            if isinstance(inp, Undo):
                if target is None:
                    for entry in reversed(entries):
                        if entry[2] and not isinstance(entry[1], (Undo, Amend)):
                            entry[2] = False
                            break
                elif target <= len(entries):
                    entries[target - 1][2] = False
            elif target <= len(entries):
                try:
                    entries[target - 1][1] = parse_input(inp.input)
                except InputError as exc:
                    raise ReplayError(seq, str(exc)) from None
            entries.append([seq, inp, False])
        else:
            entries.append([seq, inp, True])
    return [(e[0], e[1]) for e in entries if e[2]]


def _fold(rules: Rules, entries: list[tuple[int, Input]], check: bool) -> State | tuple[int, int, int]:
    state = State(rules)
    sink: list = []
    for seq, inp in entries:
        if check:
            try:
                check_input(state, inp)
            except InputError as exc:
                raise ReplayError(seq, str(exc)) from None
        if state.claimable is not None:
            c = claim_after(state, inp)
            if c is not None:
                return c.entry, seq, inp.seat
        state.seq = seq - 1  # the log position, as when it was stepped live
        apply(state, inp, sink)
        state.seq = seq
        sink.clear()
    return state


def effective_inputs(inputs: Sequence[Input]) -> list[Input]:
    """The game inputs in force after applying every Undo and Amend, in log order."""
    return [inp for _, inp in _entries(inputs, check=False)]


def last_live(inputs: Sequence[Input]) -> int:
    """The log position of the latest game input still in force (0: none)."""
    live = _entries(inputs, check=False)
    return live[-1][0] if live else 0


def replay(config: RulesConfig | Rules, inputs: Sequence[Input], *, check: bool = False) -> State:
    """The state after `inputs` (a whole log, corrections included). `check`: check every
    entry as the live table did (``check_input``) and raise ReplayError naming the first
    that cannot apply, instead of applying it (a log read from disk).

    A hold that claims a card after it landed (H5, ``table.referee.claims``) changes the
    past like an amend: the claimed play is given to the holder and the fold starts over."""
    rules = config if isinstance(config, Rules) else Rules(config)
    entries = _entries(inputs, check)
    state = _fold(rules, entries, check)
    while isinstance(state, tuple):  # (claimed entry, claiming entry, seat): start over
        target, claimer, seat = state
        entries = [(q, claimed(x, seat) if q == target else x) for q, x in entries if q != claimer]
        state = _fold(rules, entries, check)
    state.seq = len(inputs)
    history = None
    for inp in inputs:
        history = (inp, history)
    state.history = history
    return state
