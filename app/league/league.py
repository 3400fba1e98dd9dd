"""The league: subscribes to every table, counts each log entry once, keeps standings.

For each table and log it counts entries strictly in order: entry N is taken only when N-1
was, a repeat (a table sending again after a reconnect) is dropped, and an entry past a gap
(the broker restarted and lost some, or a message claiming a sequence from the future) is
not taken: the league asks the table to send its log again from the first missing entry
(`resend`), with a growing pause between asks. What the standings are is computed from the
counted entries' round data by `table.standings`, and every batch of messages is committed to
the league's own SQLite with the standings it gives. A restarted league loads that store,
reads the tables' retained `state` messages, and asks for whatever it is missing.

Tables are told apart by name and by instance: the first instance heard under a name owns
it; another one using the same name while the owner is alive is reported and ignored.
"""

from __future__ import annotations

import json
import logging
import queue
import sqlite3
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.league.mqtt import (
    ROOT,
    VERSION,
    BadMessage,
    BrokerUrl,
    EntryMessage,
    LogMeta,
    StateMessage,
    StatusMessage,
    TlsConfig,
    decode,
    encode,
    make_client,
    parse_broker_url,
    parse_topic,
    reason_text,
    topic,
)
from app.league.store import LeagueStore
from table.errors import LogError
from table.standings import (
    LeagueDataError,
    StandingsBy,
    TableMatch,
    club_standings,
    parse_rounds,
    schedule_seatings,
    two_table_match,
)

log = logging.getLogger("uno_table.league")

ALIVE = 45.0  # seconds without a word from a table before it is "not heard from" (3 heartbeats)
RESEND_FIRST = 2.0  # seconds before the first ask for missing entries, doubling to RESEND_MAX
RESEND_MAX = 60.0
LAG_GRACE = 3.0  # the table's state says it has more: wait this long for them before asking


@dataclass
class LogRec:
    match: str
    table: str
    log: str
    seq: int = 0
    meta: dict[str, Any] | None = None
    rounds_json: str = "[]"
    rounds: tuple = ()
    over: bool = False
    winners: tuple[int, ...] = ()
    round: int = 0
    phase: str = ""
    first_seen: float = 0.0
    updated: float = 0.0
    rounds_dirty: bool = False
    problem: str | None = None
    progress_at: float = 0.0  # monotonic: the last entry counted
    ask_at: float = 0.0  # monotonic: the next resend ask allowed
    ask_pause: float = RESEND_FIRST
    claimed: int = 0  # entries the table's state says this log has
    cached: Any = None  # its TableMatch, rebuilt when its rounds change

    def row(self) -> dict[str, Any]:
        return {
            "match": self.match, "table": self.table, "log": self.log, "seq": self.seq,
            "meta": self.meta, "rounds": self.rounds_json if self.rounds_dirty else None,
            "over": self.over, "winners": self.winners, "round": self.round, "phase": self.phase,
            "first_seen": self.first_seen, "updated": self.updated,
        }  # fmt: skip


@dataclass
class TableRec:
    match: str
    table: str
    instance: str | None = None
    first_seen: float = 0.0
    last_heard: float | None = None  # wall clock
    state: dict[str, Any] | None = None
    online: bool | None = None  # the owner's last status message
    clash: str | None = None  # another instance using this name
    logs: dict[str, LogRec] = field(default_factory=dict)

    def row(self) -> dict[str, Any]:
        return {"match": self.match, "table": self.table, "instance": self.instance,
                "first_seen": self.first_seen, "last_heard": self.last_heard, "state": self.state}  # fmt: skip


class League:
    """Subscribes to `uno-table/<match or +>/+/{events,state,status}` and keeps standings.

    `expect`: table names (`match/table` or just `table`) the league should hear from; it
    says which of them it has not heard from. `by`: club standings by total or by wins.
    """

    def __init__(
        self,
        broker: str | BrokerUrl,
        store: str | Path,
        *,
        match: str | None = None,
        expect: tuple[str, ...] = (),
        by: StandingsBy = "total",
        username: str | None = None,
        password: str | None = None,
        tls: TlsConfig | None = None,
        name: str = "league",
        client_factory=make_client,
        clock=time.time,
        quiet: float = 5.0,
    ) -> None:
        self.url = broker if isinstance(broker, BrokerUrl) else parse_broker_url(broker)
        self.match_filter = match
        self.expect = tuple(expect)
        self.by: StandingsBy = by
        self.clock = clock
        self.quiet = quiet  # seconds after start before silent tables are reported
        self.store = LeagueStore(store)
        self.tables: dict[tuple[str, str], TableRec] = {}
        self.standings: dict[str, dict[str, Any]] = {}
        self._dirty_tables: set[tuple[str, str]] = set()
        self._dirty_logs: set[tuple[str, str, str]] = set()
        self._dirty_matches: set[str] = set()
        self._queue: queue.Queue[tuple[str, bytes, float] | None] = queue.Queue()
        self._lock = threading.RLock()  # the records, for the page's reads
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._warned: dict[str, float] = {}
        self.connected = False
        self.started = clock()
        self.latency: deque[float] = deque(maxlen=100_000)
        self.counters = {"entries": 0, "duplicates": 0, "gaps": 0, "bad": 0, "foreign": 0,
                         "clashes": 0, "resend_asks": 0, "batches": 0}  # fmt: skip
        self._load()
        self.client = client_factory(
            self.url, f"uno-table-{name}", username=username, password=password, tls=tls,
            clean_session=False,
        )  # fmt: skip
        self.client.on_connect = self._on_connect
        self.client.on_connect_fail = self._on_connect_fail
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message

    # ----- lifecycle

    def start(self) -> League:
        self._thread = threading.Thread(target=self._run, name="league", daemon=True)
        self._thread.start()
        self.client.connect_async(self.url.host, self.url.port, keepalive=15)
        self.client.loop_start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self.client.disconnect()
        self.client.loop_stop()
        self._queue.put(None)
        if self._thread is not None:
            self._thread.join(timeout=5.0)
        self.store.close()

    close = stop

    def kill(self) -> None:
        """Stop at once, as a crash would (tests): no goodbye to the broker, nothing flushed
        beyond what was committed."""
        self._stop.set()
        self._queue.put(None)
        self.client.loop_stop()
        sock = self.client.socket()
        if sock is not None:
            try:
                sock.close()
            except OSError:
                pass
        if self._thread is not None:
            self._thread.join(timeout=5.0)
        self.store.close()

    # ----- store

    def _load(self) -> None:
        tables, logs, standings = self.store.load()
        for t in tables:
            rec = TableRec(t["match"], t["table"], t["instance"], t["first_seen"] or 0.0, t["last_heard"], t["state"])
            self.tables[(rec.match, rec.table)] = rec
        for r in logs:
            key = (r["match"], r["table"])
            t = self.tables.setdefault(key, TableRec(*key))
            rec = LogRec(r["match"], r["table"], r["log"], r["seq"], r["meta"], r["rounds"],
                         over=r["over"], winners=tuple(r["winners"]), round=r["round"], phase=r["phase"],
                         first_seen=r["first_seen"] or 0.0, updated=r["updated"] or 0.0)  # fmt: skip
            try:
                rec.rounds = parse_rounds(json.loads(rec.rounds_json))
            except (ValueError, LeagueDataError) as exc:
                rec.problem = f"stored rounds unreadable: {exc}"
            t.logs[rec.log] = rec
        self.standings = dict(standings)
        for match in {m for m, _ in self.tables}:
            self._dirty_matches.add(match)
        if self.tables:
            log.info("league: %d tables and %d logs from %s", len(self.tables), len(logs), self.store.path)

    def _commit(self) -> None:
        with self._lock:
            for m in self._dirty_matches:
                self.standings[m] = self._compute(m)
            tables = [self.tables[k].row() for k in self._dirty_tables if k in self.tables]
            logs = []
            for m, t, lg in self._dirty_logs:
                rec = self.tables[(m, t)].logs[lg]
                logs.append(rec.row())
                rec.rounds_dirty = False
            standings = {m: self.standings[m] for m in self._dirty_matches}
            self._dirty_tables.clear()
            self._dirty_logs.clear()
            self._dirty_matches.clear()
        if tables or logs or standings:
            try:
                self.store.save(tables, logs, standings)
            except (LogError, sqlite3.Error) as exc:  # disk full, store gone: keep counting, retry
                self._warn("store", f"cannot write the league store {self.store.path}: {exc}; retrying")
                with self._lock:
                    self._dirty_tables.update((t["match"], t["table"]) for t in tables)
                    for r in logs:
                        self._dirty_logs.add((r["match"], r["table"], r["log"]))
                        if r["rounds"] is not None:
                            self.tables[(r["match"], r["table"])].logs[r["log"]].rounds_dirty = True
                    self._dirty_matches.update(standings)

    # ----- paho callbacks

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            self._warn("connect", f"the broker {self.url} refused the league: {reason_code}")
            return
        m = self.match_filter or "+"
        client.subscribe([(f"{ROOT}/{m}/+/{k}", 1) for k in ("status", "state", "events")])
        self.connected = True
        log.info("league: connected to %s", self.url)

    def _on_connect_fail(self, client, userdata) -> None:
        self._warn("connect", f"the broker {self.url} is not reachable; retrying")

    def _on_disconnect(self, client, userdata, flags, reason_code, properties) -> None:
        if self.connected and not self._stop.is_set():
            self._warn("disconnect", f"lost the broker {self.url} ({reason_text(reason_code)}); retrying")
        self.connected = False

    def _on_message(self, client, userdata, msg) -> None:
        self._queue.put((msg.topic, msg.payload, time.time()))

    def feed(self, topic_name: str, payload: bytes) -> None:
        """A message as if it came from the broker (tests, replays)."""
        self._queue.put((topic_name, payload, time.time()))

    def sync(self, timeout: float = 10.0) -> bool:
        """Wait until every message received so far is counted and committed."""
        done = threading.Event()
        self._queue.put(("", b"", done))  # type: ignore[arg-type]
        return done.wait(timeout)

    # ----- the worker

    def _run(self) -> None:
        last_tick = 0.0
        while not self._stop.is_set():
            try:
                item = self._queue.get(timeout=0.5)
            except queue.Empty:
                item = ()
            if item is None:
                break
            batch = [item] if item else []
            while len(batch) < 5000:
                try:
                    nxt = self._queue.get_nowait()
                except queue.Empty:
                    break
                if nxt is None:
                    self._stop.set()
                    break
                batch.append(nxt)
            counted: list[float] = []
            syncs = [t for name, _, t in batch if name == ""]
            with self._lock:
                for topic_name, payload, _t in batch:
                    if topic_name == "":
                        continue
                    try:
                        got = self._handle(topic_name, payload)
                    except Exception as exc:  # noqa: BLE001 - one bad message never stops the league
                        self.counters["bad"] += 1
                        self._warn(f"crash:{topic_name}", f"message on {topic_name} not counted: {exc!r}")
                        got = None
                    if got is not None:
                        counted.append(got)
            if batch:
                self.counters["batches"] += 1
            if self._stop.is_set() and not counted and not syncs:
                break
            self._commit()
            now = time.time()
            self.latency.extend(now - t for t in counted)
            for ev in syncs:
                ev.set()
            mono = time.monotonic()
            if mono - last_tick >= 1.0:
                last_tick = mono
                with self._lock:
                    self._tick()

    def _handle(self, topic_name: str, payload: bytes) -> float | None:
        """One message; returns the entry's log time when an entry was counted."""
        parsed = parse_topic(topic_name)
        if parsed is None:
            self.counters["foreign"] += 1
            self._warn(f"foreign:{topic_name}", f"ignored a message on {topic_name!r}: not a table's topic")
            return None
        match, table, kind = parsed
        if kind == "resend":
            return None
        model = {"events": EntryMessage, "state": StateMessage, "status": StatusMessage}[kind]
        try:
            msg = decode(payload, model)
        except BadMessage as exc:
            self.counters["bad"] += 1
            self._warn(f"bad:{topic_name}:{str(exc)[:60]}", f"ignored a malformed message on {topic_name}: {exc}")
            return None
        key = (match, table)
        t = self.tables.get(key)
        if t is None:
            t = self.tables[key] = TableRec(match, table, first_seen=self.clock())
            self._dirty_tables.add(key)
            log.info("league: table %r of %r joined", table, match)
        if kind == "status":
            self._status(t, msg)
            return None
        if not self._owner(t, msg.instance):
            return None
        t.last_heard = self.clock()
        self._dirty_tables.add(key)
        if kind == "state":
            self._state(t, msg)
            return None
        return self._entry(t, msg)

    def _owner(self, t: TableRec, instance: str) -> bool:
        if t.instance is None:
            t.instance = instance
            self._dirty_tables.add((t.match, t.table))
            return True
        if instance == t.instance:
            return True
        self.counters["clashes"] += 1
        t.clash = instance
        self._warn(
            f"clash:{t.match}/{t.table}",
            f"table name {t.table!r} in {t.match!r} is used by two tables (instances {t.instance} "
            f"and {instance}): only {t.instance} is counted; start the other with another --table",
        )
        return False

    def _alive(self, t: TableRec) -> bool:
        if t.online is False:
            return False
        return t.online is True or (t.last_heard is not None and self.clock() - t.last_heard < ALIVE)

    def _status(self, t: TableRec, msg: StatusMessage) -> None:
        if t.instance is None or msg.instance == t.instance:
            if t.instance is None:
                t.instance = msg.instance
            t.online = msg.status == "online"
            t.last_heard = self.clock()
            self._dirty_tables.add((t.match, t.table))
            if not t.online:
                log.info("league: table %r of %r went offline", t.table, t.match)
            return
        if msg.status == "online":
            if self._alive(t):
                self._owner(t, msg.instance)  # reports the clash
            else:  # the owner is gone: a replacement table takes the name over
                log.info("league: table %r of %r is now instance %s (was %s)", t.table, t.match, msg.instance, t.instance)
                t.instance, t.online, t.clash = msg.instance, True, None
                t.last_heard = self.clock()
                self._dirty_tables.add((t.match, t.table))

    def _state(self, t: TableRec, msg: StateMessage) -> None:
        t.state = msg.model_dump(mode="json")
        # Entries the table has and the league not yet: ask after a grace period (_tick).
        for name, n in {**msg.logs, **({msg.log: msg.seq} if msg.log else {})}.items():
            rec = t.logs.get(name)
            if rec is None and n > 0:
                rec = t.logs[name] = LogRec(t.match, t.table, name, first_seen=self.clock(),
                                            progress_at=time.monotonic())  # fmt: skip
            if rec is not None:
                rec.claimed = max(rec.claimed, n)

    def _entry(self, t: TableRec, msg: EntryMessage) -> float | None:
        rec = t.logs.get(msg.log)
        if rec is None:
            rec = t.logs[msg.log] = LogRec(t.match, t.table, msg.log, first_seen=self.clock(),
                                           progress_at=time.monotonic())  # fmt: skip
        if msg.seq <= rec.seq:
            self.counters["duplicates"] += 1
            return None
        if msg.seq > rec.seq + 1:
            self.counters["gaps"] += 1
            self._warn(
                f"gap:{t.match}/{t.table}/{msg.log}",
                f"table {t.table!r} ({t.match}) sent entry {msg.seq} of log {msg.log} but the league "
                f"has counted up to {rec.seq}: not counted; asking the table for {rec.seq + 1} on",
                every=10.0,
            )
            self._ask(t, rec)
            return None
        if msg.seq == 1:
            if msg.meta is None:
                self.counters["bad"] += 1
                self._warn(f"meta:{t.match}/{t.table}", f"entry 1 of {t.table}/{msg.log} says nothing "
                                                         "about its players: not counted")  # fmt: skip
                return None
            rec.meta = msg.meta.model_dump(mode="json")
        if rec.meta is None:
            return None
        if msg.rounds is not None:
            try:
                rounds = self._check_rounds(rec, msg)
            except LeagueDataError as exc:
                self.counters["bad"] += 1
                rec.problem = str(exc)
                self._warn(f"rounds:{t.match}/{t.table}/{msg.log}",
                           f"entry {msg.seq} of {t.table}/{msg.log}: round data does not hold "
                           f"together ({exc}): not counted")  # fmt: skip
                self._ask(t, rec)
                return None
            rec.rounds = rounds
            rec.rounds_json = json.dumps(msg.rounds, separators=(",", ":"))
            rec.rounds_dirty = True
            rec.over, rec.winners = msg.over, tuple(msg.winners)
            rec.problem = None
            self._dirty_matches.add(t.match)
        rec.seq = msg.seq
        rec.round, rec.phase = msg.round, msg.phase
        rec.updated = self.clock()
        rec.progress_at = time.monotonic()
        rec.ask_pause = RESEND_FIRST
        self._dirty_logs.add((t.match, t.table, rec.log))
        self.counters["entries"] += 1
        return msg.logged_at

    def _check_rounds(self, rec: LogRec, msg: EntryMessage):
        rounds = parse_rounds(msg.rounds)
        meta = LogMeta.model_validate(rec.meta)
        n = len(meta.players)
        for r in rounds:
            bad = [p for p in (*r.result.seats, *r.points) if not 0 <= p < n]
            if bad:
                raise LeagueDataError(f"round {r.number}: players {bad} are not among the {n} players")
        if any(not 0 <= p < n for p in msg.winners):
            raise LeagueDataError(f"winners {list(msg.winners)} are not among the {n} players")
        return rounds

    def _ask(self, t: TableRec, rec: LogRec) -> None:
        now = time.monotonic()
        if now < rec.ask_at or not self.connected:
            return
        rec.ask_at = now + rec.ask_pause
        rec.ask_pause = min(rec.ask_pause * 2, RESEND_MAX)
        self.counters["resend_asks"] += 1
        body = encode({"v": VERSION, "log": rec.log, "from": rec.seq + 1})
        self.client.publish(topic(t.match, t.table, "resend"), body, qos=1)

    def _tick(self) -> None:
        """Ask for entries a table says it has and the league has not counted; say which
        tables are silent."""
        now = time.monotonic()
        for t in self.tables.values():
            if t.instance is None:
                continue
            for rec in t.logs.values():
                if rec.claimed > rec.seq and now - rec.progress_at > LAG_GRACE:
                    self._ask(t, rec)
        silent = self.not_heard_from()
        key = ",".join(silent)
        if key != getattr(self, "_silent_key", ""):
            self._silent_key = key
            if silent:
                log.warning("league: not heard from %s", ", ".join(silent))

    def not_heard_from(self) -> list[str]:
        """Tables the league expects or has seen, that are silent now (`match/table`)."""
        out = []
        if self.clock() - self.started < self.quiet:
            return out
        heard = {f"{m}/{t}" for (m, t), rec in self.tables.items() if self._alive(rec)}
        for name in self.expect:
            full = name if "/" in name else None
            if full is not None:
                if full not in heard:
                    out.append(full)
            elif not any(h.split("/", 1)[1] == name for h in heard):
                out.append(name)
        for (m, t), rec in self.tables.items():
            full = f"{m}/{t}"
            if full not in heard and full not in out and rec.instance is not None:
                out.append(full)
        return sorted(out)

    # ----- standings

    def _compute(self, match: str) -> dict[str, Any]:
        recs = [
            (t, rec) for (m, _), t in self.tables.items() if m == match
            for rec in t.logs.values() if rec.meta is not None and t.instance is not None
        ]  # fmt: skip
        out: dict[str, Any] = {"match": match, "kind": "club", "problems": [], "standings": [], "by": self.by}
        halves: dict[int, list[tuple[TableRec, LogRec]]] = {}
        club: list[TableMatch] = []
        for t, rec in recs:
            part = rec.meta.get("part")
            if part is None:
                club.append(self._table_match(t, rec))
            else:
                halves.setdefault(part, []).append((t, rec))
        if halves:
            out["kind"] = "two-table"
            out.update(self._two_tables(halves))
        if club:
            rows = club_standings(club, self.by)
            out["club"] = [r.model_dump(mode="json") for r in rows]
            out["matches_played"] = len(club)
            if not halves:
                out["standings"] = out["club"]
        return out

    def _table_match(self, t: TableRec, rec: LogRec) -> TableMatch:
        c = rec.cached
        if c is None or c[0] is not rec.rounds or c[1] != (rec.over, rec.winners):
            meta = rec.meta or {}
            tm = TableMatch(
                table=t.table, log=rec.log, players=tuple(meta.get("players") or ()),
                format=meta.get("format", "standard"), part=meta.get("part"), rounds=rec.rounds,
                over=rec.over, winners=rec.winners,
            )  # fmt: skip
            rec.cached = (rec.rounds, (rec.over, rec.winners), tm)
        return rec.cached[2]

    def _two_tables(self, halves: dict[int, list[tuple[TableRec, LogRec]]]) -> dict[str, Any]:
        problems = []
        chosen = []
        for part in (0, 1):
            cands = halves.get(part, [])
            tables = sorted({t.table for t, _ in cands})
            if not cands:
                problems.append(f"no table plays table {part} of the schedule yet")
                continue
            if len(tables) > 1:
                problems.append(f"tables {', '.join(tables)} all say they play table {part} of the schedule")
            t, rec = max(cands, key=lambda c: (c[1].first_seen, c[1].log))
            chosen.append((t, rec))
        out: dict[str, Any] = {"problems": problems, "tables": [t.table for t, _ in chosen]}
        players = tuple((chosen[0][1].meta or {}).get("players") or ()) if chosen else ()
        if len(players) == 8:
            out["seatings"] = schedule_seatings(players)
        if len(chosen) != 2:
            return out
        try:
            match = two_table_match([self._table_match(t, r) for t, r in chosen])
        except LeagueDataError as exc:
            out["problems"].append(str(exc))
            return out
        names = match.config.names or ()
        rows = [
            {"player": names[p], "total": match.totals[p],
             "rounds": sum(1 for r in match.rounds if any(p in res.seats for res in r.results))}
            for p in range(8)
        ]  # fmt: skip
        rows.sort(key=lambda r: (-r["total"], r["player"]))
        out.update(
            standings=rows,
            rounds_scored=len(match.rounds),
            rounds_total=len(match.schedule),
            over=match.over,
            winners=[names[p] for e in match.outcome.winners for p in match.entrants[e].seats],
            totals={names[p]: v for p, v in match.totals.items()},
        )
        return out

    # ----- reads (the page, tests)

    def match_totals(self, match: str) -> dict[str, int]:
        """Player -> total in the league's standings of `match`."""
        with self._lock:
            st = self.standings.get(match) or {}
            if "totals" in st:
                return dict(st["totals"])
            return {r["player"]: r["total"] for r in st.get("standings", [])}

    def counted(self) -> dict[str, int]:
        """`match/table/log` -> the highest entry counted."""
        with self._lock:
            return {f"{m}/{t}/{lg}": rec.seq for (m, t), tr in self.tables.items() for lg, rec in tr.logs.items()}

    def overview(self) -> dict[str, Any]:
        """Everything the league page shows."""
        now = self.clock()
        with self._lock:
            silent = set(self.not_heard_from())
            tables = []
            for (m, name), t in sorted(self.tables.items()):
                st = t.state or {}
                cur = t.logs.get(st.get("log") or "") if st else None
                if cur is None and t.logs:
                    cur = max(t.logs.values(), key=lambda r: (r.first_seen, r.log))
                seats = st.get("seats") or []
                turn = st.get("turn")
                tables.append({
                    "match": m, "table": name,
                    "status": "offline" if t.online is False else
                              "not heard from" if f"{m}/{name}" in silent else
                              "live" if self._alive(t) else "waiting",
                    "last_heard_s": round(now - t.last_heard, 1) if t.last_heard else None,
                    "round": st.get("round", cur.round if cur else 0),
                    "phase": st.get("phase", cur.phase if cur else ""),
                    "turn": seats[turn]["player"] if turn is not None and turn < len(seats) else None,
                    "seats": seats,
                    "part": st.get("part"),
                    "dashboard": st.get("dashboard"),
                    "log": cur.log if cur else None,
                    "counted": cur.seq if cur else 0,
                    "logged": st.get("seq", 0),
                    "clash": t.clash,
                    "problem": next((r.problem for r in t.logs.values() if r.problem), None),
                })  # fmt: skip
            for name in sorted(silent):
                if not any(f"{x['match']}/{x['table']}" == name or x["table"] == name for x in tables):
                    tables.append({"match": None, "table": name, "status": "not heard from"})
            matches = [self.standings[m] for m in sorted(self.standings)]
        return {
            "broker": str(self.url),
            "connected": self.connected,
            "by": self.by,
            "tables": tables,
            "matches": matches,
            "not_heard_from": sorted(silent),
            "counters": dict(self.counters),
            "updated": now,
        }

    def _warn(self, key: str, text: str, every: float = 30.0) -> None:
        now = time.monotonic()
        if now - self._warned.get(key, -1e9) >= every:
            self._warned[key] = now
            log.warning("league: %s", text)
