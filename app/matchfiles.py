"""Match files: which match is the current one, who plays it, and its seat links.

A data dir's `matches/` folder holds one SQLite log per match (`match-00007-<date>.db`) and
an index, `matches.db`, the one place that says:

- each match's **number**, allocated once and never reused (1, 2, 3, ...): the order of
  matches never depends on the wall clock, which on a Pi without network can go backwards;
- the **current match**, a pointer moved in the same transaction that records a new match,
  so a power cut leaves the old pointer or the new one, never a guess;
- each match's **players** (checked by `table.names`) and its **seat tokens** (the secrets
  carried by the seat QR codes): they belong to the match, so they survive a restart and a
  new match gets new ones.

`run` resumes the current match if it is not over. A current match whose log cannot be read
is never skipped for another: `open_current` raises `MatchDamaged`, whose message names the
file and the way on (`uno-table salvage FILE`, `--new-match`, SQLite's own tools).

Data dirs from before the index (a `match-*.db` beside a `.players.txt`) are taken into it
on first open, in the order of the `created` time each log stored.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from table.errors import LogError
from table.log import EventLog, rebuild_state
from table.names import clean_names
from table.rules import RulesConfig

INDEX_NAME = "matches.db"
SEAT_TOKENS = 10  # RULES.md S1: up to 10 seats; a seat's link is valid for its match only
#: match-00007-20250601-120000.db; a file from before the index is match-20250601-120000[-N].db
_NUMBERED = re.compile(r"^match-(\d{5,7})-\d{8}-\d{6}\.db$")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    number INTEGER PRIMARY KEY,
    file TEXT NOT NULL UNIQUE,
    created REAL NOT NULL,
    players TEXT NOT NULL,
    seat_tokens TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS current (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    number INTEGER NOT NULL REFERENCES matches(number)
);
"""


class MatchDamaged(LogError):
    """The current match's log is missing or cannot be read; nothing was changed."""


@dataclass
class MatchRecord:
    number: int
    path: Path
    players: list[str]
    seat_tokens: dict[int, str] = field(default_factory=dict)


def new_seat_tokens(seats: int = SEAT_TOKENS) -> dict[int, str]:
    return {seat: secrets.token_urlsafe(12) for seat in range(seats)}


def damaged_message(path: Path, number: int | None, why: str) -> str:
    which = f"match {number}" if number is not None else "the match"
    return (
        f"the current match log {path} ({which}) cannot be read: {why}. Nothing was changed "
        "and no other match was opened. To go on: `uno-table salvage "
        f"{path}` copies its readable entries into a new match and makes that the current one; "
        "or `uno-table run --new-match` starts a fresh match (the damaged file stays on disk). "
        f"SQLite's own tools: `sqlite3 {path} 'PRAGMA integrity_check'` and `.recover`."
    )


class MatchStore:
    """The index of one `matches/` folder. Thread-safe (one connection, one lock)."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.index_path = self.folder / INDEX_NAME
        self._lock = threading.Lock()
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(
                str(self.index_path), isolation_level=None, check_same_thread=False, timeout=10
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
            self._adopt_legacy()
        except sqlite3.DatabaseError as exc:
            raise LogError(
                f"the match index {self.index_path} cannot be read ({exc}); move it aside and "
                "start again: the match logs beside it are taken back in, newest last"
            ) from None
        except OSError as exc:
            raise LogError(
                f"the data dir {self.folder} is not writable ({exc.strerror}): the game log cannot "
                "be kept there; choose another with --data-dir or fix its permissions"
            ) from None

    # ----- reading

    def _record(self, row) -> MatchRecord:
        number, file, players, tokens = row
        return MatchRecord(
            number=number,
            path=self.folder / file,
            players=list(json.loads(players)),
            seat_tokens={int(k): v for k, v in json.loads(tokens).items()},
        )

    def current(self) -> MatchRecord | None:
        with self._lock:
            row = self._db.execute(
                "SELECT m.number, m.file, m.players, m.seat_tokens FROM current c "
                "JOIN matches m ON m.number = c.number WHERE c.id = 1"
            ).fetchone()
        return self._record(row) if row else None

    def record(self, number: int) -> MatchRecord | None:
        with self._lock:
            row = self._db.execute(
                "SELECT number, file, players, seat_tokens FROM matches WHERE number = ?", (number,)
            ).fetchone()
        return self._record(row) if row else None

    def record_for(self, path: Path) -> MatchRecord | None:
        with self._lock:
            row = self._db.execute(
                "SELECT number, file, players, seat_tokens FROM matches WHERE file = ?", (Path(path).name,)
            ).fetchone()
        return self._record(row) if row else None

    def numbers(self) -> list[int]:
        with self._lock:
            return [r[0] for r in self._db.execute("SELECT number FROM matches ORDER BY number")]

    # ----- the current match

    def open_current(self):
        """(record, log, state) of the current match; None when there is none yet.

        Raises MatchDamaged naming the file when its log is missing or unreadable."""
        rec = self.current()
        if rec is None:
            return None
        return (rec, *open_checked(rec.path, rec.number))

    def new_match(self, rules: RulesConfig, names: list[str]) -> tuple[MatchRecord, EventLog]:
        """A new log, numbered after every match before it, made the current match."""
        names = clean_names(names)
        players = rules.match_config().players  # T2 at two tables: the match's 8, 4 seats here
        if len(names) != players:
            raise LogError(f"{len(names)} names given for {players} players")
        with self._lock:
            number = self._next_number()
            stamp = time.strftime("%Y%m%d-%H%M%S")
            path = self.folder / f"match-{number:05d}-{stamp}.db"
            log = EventLog(path, rules)
            tokens = new_seat_tokens()
            try:
                self._db.execute("BEGIN IMMEDIATE")
                self._db.execute(
                    "INSERT INTO matches(number, file, created, players, seat_tokens) VALUES (?, ?, ?, ?, ?)",
                    (number, path.name, time.time(), json.dumps(names), json.dumps(tokens)),
                )
                self._db.execute(
                    "INSERT INTO current(id, number) VALUES (1, ?) "
                    "ON CONFLICT(id) DO UPDATE SET number = excluded.number",
                    (number,),
                )
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                log.close()
                raise
        return MatchRecord(number, path, names, tokens), log

    def _next_number(self) -> int:
        """One more than any match in the index or any numbered file in the folder (an index
        that was moved aside must not hand out a number again)."""
        top = self._db.execute("SELECT COALESCE(MAX(number), 0) FROM matches").fetchone()[0]
        for p in self.folder.glob("match-*.db"):
            m = _NUMBERED.match(p.name)
            if m:
                top = max(top, int(m.group(1)))
        return top + 1

    # ----- data dirs from before the index

    def _adopt_legacy(self) -> None:
        known = {r[0] for r in self._db.execute("SELECT file FROM matches")}
        legacy = [p for p in self.folder.glob("match-*.db") if p.name not in known and not _NUMBERED.match(p.name)]
        if not legacy or known:
            return  # only a folder that has no index yet is adopted
        dated = sorted(legacy, key=lambda p: (_created(p), p.name))
        self._db.execute("BEGIN IMMEDIATE")
        try:
            for number, p in enumerate(dated, 1):
                names = _legacy_names(p)
                self._db.execute(
                    "INSERT INTO matches(number, file, created, players, seat_tokens) VALUES (?, ?, ?, ?, ?)",
                    (number, p.name, _created(p), json.dumps(names), json.dumps(new_seat_tokens())),
                )
            self._db.execute(
                "INSERT INTO current(id, number) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET number = excluded.number",
                (len(dated),),
            )
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> MatchStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _created(path: Path) -> float:
    """When a log says it was created (its own meta row), else its file time."""
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            row = con.execute("SELECT value FROM meta WHERE key = 'created'").fetchone()
        finally:
            con.close()
        return float(row[0])
    except (sqlite3.Error, TypeError, ValueError):
        try:
            return path.stat().st_mtime
        except OSError:
            return 0.0


def _legacy_names(path: Path) -> list[str]:
    """The names beside an old log (`.players.txt`, one a line); [] when there are none or
    they do not pass `table.names` (the match then opens with seat names)."""
    try:
        lines = path.with_suffix(".players.txt").read_text(encoding="utf-8").splitlines()
        return clean_names(line for line in lines if line.strip())
    except (OSError, UnicodeDecodeError, ValueError):
        return []


def open_checked(path: Path, number: int | None = None):
    """(log, state) of a match log that is whole and replays; MatchDamaged otherwise."""
    path = Path(path)
    if not path.exists():
        raise MatchDamaged(damaged_message(path, number, "the file is missing"))
    if path.stat().st_size == 0:
        raise MatchDamaged(damaged_message(path, number, "the file is empty (0 bytes)"))
    problems = _quick_check(path)
    if problems:
        raise MatchDamaged(damaged_message(path, number, f"SQLite's quick_check finds: {problems}"))
    try:
        log = EventLog(path, create=False)
    except LogError as exc:
        raise MatchDamaged(damaged_message(path, number, _reason(exc, path))) from None
    try:
        state = rebuild_state(log.rules, log.inputs(), str(path))
    except LogError as exc:
        log.close()
        raise MatchDamaged(damaged_message(path, number, _reason(exc, path))) from None
    return log, state


def _quick_check(path: Path) -> str | None:
    """SQLite's own check of every page (quick_check: no index cross-check, so it is fast on
    a match log); None when the file is whole."""
    try:
        con = sqlite3.connect(str(path), timeout=10)
        try:
            rows = [r[0] for r in con.execute("PRAGMA quick_check(3)")]
        finally:
            con.close()
    except sqlite3.DatabaseError as exc:
        return str(exc)
    return None if rows == ["ok"] else "; ".join(rows)


def _reason(exc: Exception, path: Path) -> str:
    return str(exc).removeprefix(f"{path}: ").removeprefix(f"{path}").strip() or "unreadable"


# ----------------------------------------------------------------------------- salvage


def salvage(damaged: Path, out=print) -> MatchRecord:
    """Copy the readable, replayable prefix of a damaged log into a new match of the same
    folder and make it the current match. The damaged file is left as it is."""
    damaged = Path(damaged)
    if not damaged.is_file() or damaged.stat().st_size == 0:
        raise LogError(f"{damaged}: nothing to salvage (missing or empty); start afresh with `uno-table run --new-match`")
    rules, bodies, total, stop = _readable_prefix(damaged)
    from table.inputs import parse_input
    from table.referee import check_input, new_state, step

    state = new_state(rules)
    inputs = []
    for seq, body in bodies:
        try:
            inp = parse_input(json.loads(body))
            check_input(state, inp)
        except (ValueError, TypeError) as exc:
            stop = stop or f"entry {seq} cannot be replayed ({exc})"
            break
        state, _ = step(state, inp)
        inputs.append(inp)
    store = MatchStore(damaged.parent)
    try:
        old = store.record_for(damaged)
        names = (old.players if old else []) or _legacy_names(damaged) or [f"Seat {i}" for i in range(rules.players)]
        rec, log = store.new_match(rules, names)
        with log:
            for inp in inputs:
                log.append(inp)
    finally:
        store.close()
    out(
        f"Salvaged {len(inputs)} of {total if total is not None else '?'} entries from {damaged} into "
        f"{rec.path} (match {rec.number}, now the current match)"
        + (f"; stopped at: {stop}" if stop else "")
        + ". The damaged file is kept as it was."
    )
    return rec


def _readable_prefix(path: Path) -> tuple[RulesConfig, list[tuple[int, str]], int | None, str | None]:
    """The stored rules and the (seq, body) rows read in order until the first that fails."""
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise LogError(f"{path}: cannot be opened at all ({exc}); start afresh with `uno-table run --new-match`") from None
    try:
        try:
            row = con.execute("SELECT value FROM meta WHERE key = 'rules'").fetchone()
            rules = RulesConfig.model_validate_json(row[0])
        except (sqlite3.Error, TypeError, ValueError) as exc:
            raise LogError(
                f"{path}: the rules it was played by cannot be read ({exc}), so no entry can be "
                "replayed; start afresh with `uno-table run --new-match` (try SQLite's `.recover` "
                "on a copy for the raw rows)"
            ) from None
        total = None
        try:
            total = con.execute("SELECT MAX(seq) FROM inputs").fetchone()[0]
        except sqlite3.Error:
            pass
        rows: list[tuple[int, str]] = []
        stop = None
        seq = 0
        while True:
            try:
                got = con.execute("SELECT seq, body FROM inputs WHERE seq > ? ORDER BY seq LIMIT 1", (seq,)).fetchone()
            except sqlite3.Error as exc:
                stop = f"the row after entry {seq} cannot be read ({exc})"
                break
            if got is None:
                break
            if got[0] != seq + 1:
                stop = f"entry {seq + 1} is missing"
                break
            seq = got[0]
            rows.append(got)
        return rules, rows, total, stop
    finally:
        con.close()


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("salvage", help="copy the readable part of a damaged match log into a new current match")
    p.add_argument("db", type=Path, help="the damaged match log (in the data dir's matches/ folder)")
    p.set_defaults(func=_cmd_salvage)


def _cmd_salvage(args) -> int:
    from app.lock import DataDirLock

    with DataDirLock(Path(args.db).parent, what="salvage"):
        salvage(args.db)
    return 0


def ensure_writable(folder: Path) -> None:
    """A clear error now when the folder cannot hold the log (not a crash mid-game)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".writable-{os.getpid()}"
        probe.write_text("ok")
        probe.unlink()
    except OSError as exc:
        raise LogError(
            f"the data dir {folder} is not writable ({exc.strerror}): the game log cannot be "
            "kept there; choose another with --data-dir or fix its permissions"
        ) from None
