"""The event log: SQLite (standard library), append-only, the single source of truth.

- Every input is written in its own transaction BEFORE the referee applies it; the state is
  the replay of the logged inputs (events are derived, so they are never out of step).
- WAL journal with synchronous=FULL: a committed input survives a power cut.
- Append-only: triggers refuse UPDATE and DELETE; a host correction or undo is a new entry.
- A file that is not an UNO Table log (or is damaged) gives LogError naming the file.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from table.cards import FACE_OF
from table.errors import LogError
from table.inputs import INPUT_TYPES, Input, InputError, input_to_dict, parse_input
from table.referee import State, advance, check_input, new_state
from table.rules import RulesConfig

FORMAT = "uno-table-log"
VERSION = "1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS inputs (
    seq INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    body TEXT NOT NULL,
    logged_at REAL NOT NULL
);
CREATE TRIGGER IF NOT EXISTS inputs_no_update BEFORE UPDATE ON inputs
BEGIN SELECT RAISE(ABORT, 'the UNO Table log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS inputs_no_delete BEFORE DELETE ON inputs
BEGIN SELECT RAISE(ABORT, 'the UNO Table log is append-only'); END;
"""


def _fast_input(d: dict[str, Any]) -> Input:
    """Rebuild an input the log wrote itself without a pydantic round trip (replay speed);
    anything unexpected falls back to the validating parser."""
    cls = INPUT_TYPES[d["kind"]]
    kw = {}
    for k, v in d.items():
        if k == "kind":
            continue
        if isinstance(v, list):
            v = tuple(v)
        elif k == "cards" and isinstance(v, dict):
            v = {int(s): c for s, c in v.items()}
        kw[k] = v
    for key in ("card", "cards"):
        value = kw.get(key)
        if value is not None:
            for c in value.values() if isinstance(value, dict) else (value,) if key == "card" else value:
                if c not in FACE_OF:
                    raise ValueError(f"unknown card {c!r}")
    return cls(**kw)


class MemoryLog:
    """The same interface kept in memory (simulation, tests)."""

    def __init__(self, rules: RulesConfig):
        self.rules = rules
        self._inputs: list[Input] = []

    def append(self, inp: Input) -> int:
        self._inputs.append(inp)
        return len(self._inputs)

    def inputs(self) -> list[Input]:
        return list(self._inputs)

    def __len__(self) -> int:
        return len(self._inputs)

    def close(self) -> None:
        pass


class EventLog:
    """An SQLite log file. ``EventLog(path, rules)`` creates it (storing the rules) or opens
    an existing one (whose stored rules win; passing different rules is an error)."""

    def __init__(self, path: str | Path, rules: RulesConfig | None = None, create: bool = True):
        self.path = Path(path)
        self._lock = threading.Lock()  # one connection shared by the hub and readers
        exists = self.path.exists() and self.path.stat().st_size > 0
        if not exists and not create:
            raise LogError(f"{self.path}: no such log file")
        try:
            self._db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            if exists:
                self._check_format()
            else:
                if rules is None:
                    raise LogError(f"{self.path}: a new log needs the rules it is played by")
                self._create(rules)
            stored = self._meta("rules")
            self._count = self._db.execute("SELECT COUNT(*) FROM inputs").fetchone()[0]
        except sqlite3.DatabaseError as exc:
            self._close_quietly()
            raise LogError(f"{self.path}: not a readable UNO Table log ({exc})") from None
        try:
            self.rules = RulesConfig.model_validate_json(stored)
        except ValueError as exc:
            self._close_quietly()
            raise LogError(f"{self.path}: the stored rules are damaged ({exc.__class__.__name__})") from None
        if rules is not None and exists and rules.model_dump() != self.rules.model_dump():
            self._close_quietly()
            raise LogError(
                f"{self.path}: this log was played with rules {self.rules.name!r} that differ from "
                f"the rules given ({rules.name!r}); open it without rules to replay it as played"
            )

    def _close_quietly(self) -> None:
        try:
            self._db.close()
        except Exception:  # noqa: BLE001 - already reporting the real problem
            pass

    def _create(self, rules: RulesConfig) -> None:
        db = self._db
        db.executescript(_SCHEMA)  # idempotent; the meta rows below make it a log
        db.execute("BEGIN IMMEDIATE")
        try:
            db.executemany(
                "INSERT INTO meta(key, value) VALUES (?, ?)",
                [("format", FORMAT), ("version", VERSION), ("rules", rules.model_dump_json()),
                 ("created", repr(time.time()))],
            )  # fmt: skip
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    def _meta(self, key: str) -> str:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        if row is None:
            raise LogError(f"{self.path}: the log has no '{key}' entry")
        return row[0]

    def _check_format(self) -> None:
        tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not {"meta", "inputs"} <= tables:
            raise LogError(
                f"{self.path}: an SQLite database but not an UNO Table log "
                f"(tables: {', '.join(sorted(tables)) or 'none'})"
            )
        if self._meta("format") != FORMAT:
            raise LogError(f"{self.path}: not an UNO Table log (format {self._meta('format')!r})")
        if self._meta("version") != VERSION:
            raise LogError(f"{self.path}: log version {self._meta('version')} is not supported (expected {VERSION})")

    def append(self, inp: Input) -> int:
        """Write one input in its own transaction (committed, fsynced) and return its seq."""
        body = json.dumps(input_to_dict(inp), separators=(",", ":"))
        try:
            with self._lock:
                cur = self._db.execute(
                    "INSERT INTO inputs(kind, body, logged_at) VALUES (?, ?, ?)",
                    (inp.kind, body, time.time()),
                )
                self._count += 1
        except sqlite3.Error as exc:
            raise LogError(f"{self.path}: cannot append to the log ({exc})") from None
        return int(cur.lastrowid)

    def rows(self, after: int = 0) -> list[tuple[int, str]]:
        try:
            with self._lock:
                return self._db.execute(
                    "SELECT seq, body FROM inputs WHERE seq > ? ORDER BY seq", (after,)
                ).fetchall()
        except sqlite3.Error as exc:
            raise LogError(f"{self.path}: cannot read the log ({exc})") from None

    def entries(self, after: int = 0) -> list[dict[str, Any]]:
        """The raw log for a dashboard: seq, kind, the input as JSON, and when it was logged."""
        try:
            with self._lock:
                rows = self._db.execute(
                    "SELECT seq, kind, body, logged_at FROM inputs WHERE seq > ? ORDER BY seq",
                    (after,),
                ).fetchall()
        except sqlite3.Error as exc:
            raise LogError(f"{self.path}: cannot read the log ({exc})") from None
        return [{"seq": q, "kind": k, "input": json.loads(b), "logged_at": t} for q, k, b, t in rows]

    def inputs(self) -> list[Input]:
        out: list[Input] = []
        for seq, body in self.rows():
            try:
                data = json.loads(body)
                try:
                    out.append(_fast_input(data))
                except (KeyError, TypeError, ValueError):
                    out.append(parse_input(data))
            except (ValueError, InputError) as exc:
                raise LogError(f"{self.path}: entry {seq} is damaged: {exc}") from None
        return out

    def __len__(self) -> int:
        return self._count

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> EventLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def rebuild_state(rules: RulesConfig, inputs: list[Input], where: str = "log") -> State:
    """Replay logged inputs, checking each as the live table did; an entry that cannot apply
    (a damaged or hand-edited log) gives LogError naming it instead of a crash."""
    state = new_state(rules)
    for seq, inp in enumerate(inputs, 1):
        try:
            check_input(state, inp)
        except InputError as exc:
            raise LogError(f"{where}: entry {seq} cannot be replayed: {exc}") from None
        advance(state, inp)
    return state
