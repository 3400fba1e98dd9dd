"""The league's own SQLite: per table and log, the highest entry counted and the scored rounds
as the table's referee published them; the standings computed from them; which instance
owns each table name. The league writes it in one transaction per batch of messages, and a
restarted league starts from it (then asks the tables for whatever it is missing)."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

from table.errors import LogError

FORMAT = "uno-table-league"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tables (
    match TEXT NOT NULL, tbl TEXT NOT NULL, instance TEXT, first_seen REAL, last_heard REAL,
    state TEXT, PRIMARY KEY (match, tbl)
);
CREATE TABLE IF NOT EXISTS logs (
    match TEXT NOT NULL, tbl TEXT NOT NULL, log TEXT NOT NULL, seq INTEGER NOT NULL,
    meta TEXT, rounds TEXT, over INTEGER NOT NULL DEFAULT 0,
    winners TEXT NOT NULL DEFAULT '[]', round INTEGER NOT NULL DEFAULT 0, phase TEXT,
    first_seen REAL, updated REAL, PRIMARY KEY (match, tbl, log)
);
CREATE TABLE IF NOT EXISTS standings (match TEXT PRIMARY KEY, body TEXT NOT NULL, updated REAL);
"""


class LeagueStore:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
            row = self._db.execute("SELECT value FROM meta WHERE key='format'").fetchone()
            if row is None:
                self._db.execute("INSERT INTO meta(key, value) VALUES ('format', ?)", (FORMAT,))
            elif row[0] != FORMAT:
                raise LogError(f"{self.path}: not a league store (format {row[0]!r})")
        except sqlite3.DatabaseError as exc:
            raise LogError(f"{self.path}: not a readable league store ({exc})") from None

    def load(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Any]]:
        with self._lock:
            tables = [
                {"match": m, "table": t, "instance": i, "first_seen": f, "last_heard": h,
                 "state": json.loads(s) if s else None}
                for m, t, i, f, h, s in self._db.execute(
                    "SELECT match, tbl, instance, first_seen, last_heard, state FROM tables")
            ]  # fmt: skip
            logs = [
                {"match": m, "table": t, "log": lg, "seq": q, "meta": json.loads(me) if me else None,
                 "rounds": r or "[]", "over": bool(o), "winners": json.loads(w), "round": rd, "phase": ph or "",
                 "first_seen": f, "updated": u}
                for m, t, lg, q, me, r, o, w, rd, ph, f, u in self._db.execute(
                    "SELECT match, tbl, log, seq, meta, rounds, over, winners, round, phase, "
                    "first_seen, updated FROM logs")
            ]  # fmt: skip
            standings = {m: json.loads(b) for m, b in self._db.execute("SELECT match, body FROM standings")}
        return tables, logs, standings

    def save(
        self,
        tables: list[dict[str, Any]],
        logs: list[dict[str, Any]],
        standings: dict[str, Any],
    ) -> None:
        """Everything one batch changed, in one transaction (a log's `rounds` None: unchanged)."""
        with self._lock:
            db = self._db
            db.execute("BEGIN")
            try:
                db.executemany(
                    "INSERT INTO tables(match, tbl, instance, first_seen, last_heard, state) "
                    "VALUES (?,?,?,?,?,?) ON CONFLICT(match, tbl) DO UPDATE SET "
                    "instance=excluded.instance, last_heard=excluded.last_heard, state=excluded.state",
                    [(t["match"], t["table"], t["instance"], t["first_seen"], t["last_heard"],
                      json.dumps(t["state"]) if t["state"] is not None else None) for t in tables],
                )  # fmt: skip
                db.executemany(
                    "INSERT INTO logs(match, tbl, log, seq, meta, rounds, over, winners, round, phase, "
                    "first_seen, updated) VALUES (?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT(match, tbl, log) "
                    "DO UPDATE SET seq=excluded.seq, meta=excluded.meta, "
                    "rounds=COALESCE(excluded.rounds, logs.rounds), "
                    "over=excluded.over, winners=excluded.winners, round=excluded.round, "
                    "phase=excluded.phase, updated=excluded.updated",
                    [(r["match"], r["table"], r["log"], r["seq"],
                      json.dumps(r["meta"]) if r["meta"] is not None else None, r["rounds"],
                      int(r["over"]), json.dumps(list(r["winners"])), r["round"], r["phase"],
                      r["first_seen"], r["updated"]) for r in logs],
                )  # fmt: skip
                db.executemany(
                    "INSERT INTO standings(match, body, updated) VALUES (?,?,strftime('%s','now')) "
                    "ON CONFLICT(match) DO UPDATE SET body=excluded.body, updated=excluded.updated",
                    [(m, json.dumps(b)) for m, b in standings.items()],
                )
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise

    def close(self) -> None:
        with self._lock:
            self._db.close()
