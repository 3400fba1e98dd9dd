"""Simulated tables for the league demo, the tests and the benchmark.

A simulated table is a real table without a camera: an `app.hub.TableHub` over an SQLite log,
fed by the referee-level simulator (`table.simulator.Simulator`, real hands, simple players)
through `hub.submit`, the same door the camera, buttons and phones use. Its publisher reads
that log like any table's. `pace` is the time between two inputs (a real table: about one
input every 2 s; 0: as fast as the referee goes).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from app.hub import TableHub
from app.matchfiles import MatchStore
from table.inputs import input_to_dict
from table.log import EventLog
from table.referee import MATCH_OVER
from table.rules import load_rules
from table.simulator import SimOptions, Simulator

if TYPE_CHECKING:
    from table.standings import TableMatch

EIGHT = ("Ana", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hana")
FIRST = ("Ana", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jun", "Kai", "Lea",
         "Max", "Noa", "Oli", "Pia", "Quin", "Rio", "Sam", "Tea", "Uma", "Vic", "Wen", "Xia")  # fmt: skip


class Stopped(Exception):
    pass


def club_players(index: int, seats: int = 4) -> list[str]:
    """Distinct player names for table `index` of a club."""
    return [f"{FIRST[(index * seats + i) % len(FIRST)]}{(index * seats + i) // len(FIRST) or ''}" for i in range(seats)]


class SimTable:
    """One simulated table: its hub, its log in `folder`, and a player loop.

    part None: a table playing its own matches (4 players, `preset`); part 0/1: one table of
    the two-table 8-player rotating match (players = the 8 names, in the same order at both).
    """

    def __init__(
        self,
        folder: Path,
        name: str,
        players: list[str] | tuple[str, ...],
        *,
        part: int | None = None,
        preset: str = "official",
        seed: int = 0,
        pace: float = 0.0,
        options: SimOptions | None = None,
        rules: dict | None = None,
    ) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.part = part
        self.seed = seed
        self.pace = pace
        self.options = options or SimOptions(forget_uno=0.1, catch_rate=0.5)
        overrides: dict = {"players": len(players)}
        if part is not None:
            overrides = {"players": 4, "teams": {"mode": "rotating", "table": part}}
        rules = load_rules(preset, overrides={**overrides, **(rules or {})})
        # The table's own match index and numbered logs, as `uno-table run` keeps them.
        self.store = MatchStore(self.folder)
        record, log = self.store.new_match(rules, list(players))
        self.hub = TableHub(log, record.players, preset=preset, match_dir=self.folder,
                            matches=self.store, seat_tokens=record.seat_tokens)  # fmt: skip
        self.rounds_played = 0
        self.matches_played = 0
        self.paused = threading.Event()  # set: the players wait (a table taking a break)
        self.waiting = threading.Event()  # set while the players wait
        self.pauses = 0  # how many times the players stopped at `pause_at`
        self.pause_at: int | None = None  # pause once the log holds this many entries
        self.error: BaseException | None = None
        self.done = threading.Event()

    def _submit(self, inp, stop: threading.Event | None) -> None:
        if stop is not None:
            if self.pace > 0 and stop.wait(self.pace):
                raise Stopped()
            if self.pause_at is not None and len(self.hub.log) >= self.pause_at:
                self.pause_at = None
                self.paused.set()
                self.pauses += 1
            while self.paused.is_set():
                self.waiting.set()
                if stop.wait(0.01):
                    raise Stopped()
            self.waiting.clear()
            if stop.is_set():
                raise Stopped()
        self.hub.submit(input_to_dict(inp), source="host")

    def play(self, stop: threading.Event | None = None, *, rounds: int | None = None,
             matches: int | None = 1) -> None:  # fmt: skip
        """Play rounds until `rounds` rounds, `matches` matches, or `stop` (None: no limit)."""
        n_round = 0
        seed = self.seed
        while True:
            sim = Simulator(self.hub.log.rules, seed=seed, options=self.options,
                            on_input=lambda inp: self._submit(inp, stop))  # fmt: skip
            try:
                while sim.state.phase != MATCH_OVER:
                    if rounds is not None and n_round >= rounds:
                        return
                    sim.play_round()
                    n_round += 1
                    self.rounds_played += 1
            except Stopped:
                return
            self.matches_played += 1
            if matches is not None and self.matches_played >= matches:
                return
            if stop is not None and stop.is_set():
                return
            self.hub.submit({"kind": "new-match"}, source="host")
            seed += 1000

    def start(self, stop: threading.Event, **kw) -> threading.Thread:
        """Play on a thread (once: the simulator's state follows the hub's from the start)."""

        def run() -> None:
            try:
                self.play(stop, **kw)
            except BaseException as exc:  # noqa: BLE001 - kept for the caller to see
                self.error = exc
            finally:
                self.done.set()

        th = threading.Thread(target=run, name=f"sim-{self.name}", daemon=True)
        th.start()
        return th

    def close(self) -> None:
        self.hub.close()
        self.store.close()


def table_match_from_log(path: Path, table: str) -> TableMatch:
    """What a league should know of one table's match, computed straight from its log file
    by replaying it (the check for the league's own figures)."""
    from app.matchfiles import MatchStore
    from table.log import rebuild_state
    from table.standings import TableMatch, outcome_winners, parse_rounds, round_records

    with EventLog(path, create=False) as log:
        rules = log.rules
        state = rebuild_state(rules, log.inputs(), str(path))
    with MatchStore(Path(path).parent) as store:
        record = store.record_for(path)
    names = record.players if record else [f"Seat {i}" for i in range(rules.match_config().players)]
    return TableMatch(
        table=table, log=Path(path).stem, players=tuple(names), format=rules.scoring.format,
        part=rules.teams.table, rounds=parse_rounds(round_records(state.match)),
        over=bool(state.match is not None and state.match.over), winners=tuple(outcome_winners(state.match)),
    )  # fmt: skip


def scores_from_logs(logs: dict[str, list[Path]]) -> dict[str, int]:
    """Player -> total over the given tables' logs ({table: [log files]}): a two-table match
    when the logs are its two halves, else the club total."""
    from table.standings import club_standings, two_table_match

    matches = [table_match_from_log(p, t) for t, paths in logs.items() for p in paths]
    if matches and all(m.part is not None for m in matches):
        match = two_table_match(matches)
        names = match.config.names or ()
        return {names[p]: v for p, v in match.totals.items()}
    return {r.player: r.total for r in club_standings(matches)}
