"""A table publishes its log to the league's broker.

The SQLite log stays the truth: the publisher reads entries from the log file (its own
connection, never writing), in order, and publishes each one to
`uno-table/<match>/<table>/events` with its sequence number (QoS 1). It remembers the last
entry the broker acknowledged (a small JSON file beside the logs, written atomically), so
after a restart, a broker restart or a Wi-Fi drop it sends what is missing; the league keeps
the highest sequence per table and log, so an entry sent twice is counted once.

Each entry also carries what the table's referee made of it, folded from the same log: the
round, the phase and, when the match's scored rounds changed, the whole list of them
(`table.standings.round_records`). The first entry of a log carries who plays and how.
A retained `state` message (round, scores, whose turn, how long each log is) and a retained
`status` (`online`; the broker publishes the last will `offline` when the link dies) let a
league that starts later, or restarts, see every table at once.

It never blocks the table: the hub only wakes it; the network runs on paho's thread; a broker
that is down at start or goes away is retried for ever while the table plays on.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from app.league.mqtt import (
    VERSION,
    BadMessage,
    LeagueConfig,
    LeagueError,
    ResendRequest,
    StatusMessage,
    decode,
    encode,
    make_client,
    new_instance_id,
    reason_text,
    topic,
)
from table.errors import LogError, UnoTableError
from table.inputs import InputError, parse_input
from table.log import EventLog
from table.referee import advance, new_state
from table.standings import outcome_winners, round_records

log = logging.getLogger("uno_table.league.publisher")

WINDOW = 500  # entries published but not yet acknowledged, at most
STATE_EVERY = 0.25  # seconds between two retained state messages, at most
HEARTBEAT = 15.0  # seconds: the state is published again even when nothing changed
STALL = 20.0  # seconds connected with entries unacknowledged and no ack: send them again
KEEP_LOGS = 8  # logs listed in the state message (the newest)


class _Cursor:
    """One log file being published: what was sent, what the broker acknowledged, and the
    referee folded along the entries (for the round data each entry carries)."""

    def __init__(self, path: Path, names: list[str], acked: int):
        self.path = path
        self.name = path.stem
        with EventLog(path, create=False) as checked:  # a log, readable: its rules
            self.rules = checked.rules
        # Its own read-only connection: the hub is the one writer (WAL lets both work).
        try:
            self._db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        except sqlite3.Error as exc:
            raise LogError(f"{path}: cannot read the log ({exc})") from None
        self._lock = threading.Lock()
        self.names = list(names)
        self.acked = acked  # every entry up to here is on the broker
        self.sent = acked  # every entry up to here was handed to the client
        self.done: set[int] = set()  # acknowledged beyond `acked` (out of order)
        self._reset_fold()

    def _reset_fold(self) -> None:
        self.state = new_state(self.rules)
        self.fold_pos = 0
        self.last_match: Any = None
        self.last_rounds: list[dict[str, Any]] = []

    def meta(self) -> dict[str, Any]:
        r = self.rules
        return {
            "players": self.names,
            "format": r.scoring.format,
            "part": r.teams.table,
            "rules": r.name,
            "seats": r.players,
        }

    def rewind(self, seq: int) -> None:
        """Send again from entry `seq` (the league lost some: a broker restarted empty)."""
        self.sent = min(self.sent, max(seq - 1, 0))
        if self.fold_pos > self.sent:
            self._reset_fold()

    def ack(self, seq: int) -> None:
        if seq <= self.acked:
            return
        self.done.add(seq)
        while self.acked + 1 in self.done:
            self.acked += 1
            self.done.discard(self.acked)

    def length(self) -> int:
        """Entries in the log now (the hub may have appended since the last look)."""
        return int(self._query("SELECT COALESCE(MAX(seq), 0) FROM inputs", ())[0][0])

    def entries(self, after: int, limit: int) -> list[dict[str, Any]]:
        rows = self._query(
            "SELECT seq, kind, body, logged_at FROM inputs WHERE seq > ? ORDER BY seq LIMIT ?", (after, limit)
        )
        return [{"seq": q, "kind": k, "input": json.loads(b), "logged_at": t} for q, k, b, t in rows]

    def _query(self, sql: str, args: tuple) -> list[tuple]:
        try:
            with self._lock:
                return self._db.execute(sql, args).fetchall()
        except sqlite3.Error as exc:
            raise LogError(f"{self.path}: cannot read the log ({exc})") from None

    def _fold(self, body: dict[str, Any]) -> None:
        inp = parse_input(body)
        advance(self.state, inp)
        self.fold_pos += 1

    def next_messages(self, limit: int, base: dict[str, Any]) -> list[tuple[int, bytes]]:
        """Up to `limit` entries after `sent`, as messages (the fold catches up on the way)."""
        if limit <= 0:
            return []
        if self.fold_pos < self.sent:
            for row in self.entries(self.fold_pos, self.sent - self.fold_pos):
                self._fold(row["input"])
        out = []
        for row in self.entries(self.sent, limit):
            seq = row["seq"]
            self._fold(row["input"])
            st = self.state
            msg = dict(base)
            msg.update(
                log=self.name, seq=seq, kind=row["kind"], input=row["input"],
                logged_at=row["logged_at"], round=st.round, phase=st.phase,
            )  # fmt: skip
            if seq == 1:
                msg["meta"] = self.meta()
            if st.match is not self.last_match:
                self.last_match = st.match
                rounds = round_records(st.match)
                if rounds != self.last_rounds:
                    self.last_rounds = rounds
                    msg["rounds"] = rounds
                    msg["over"] = bool(st.match is not None and st.match.over)
                    msg["winners"] = outcome_winners(st.match)
            out.append((seq, encode(msg)))
            self.sent = seq
        return out

    def close(self) -> None:
        with self._lock:
            self._db.close()


class TablePublisher:
    """Publishes a running table (`app.hub.TableHub` with an SQLite log) to a league broker.

        pub = TablePublisher(hub, league_config).start()
        ...
        pub.stop()
    """

    def __init__(
        self,
        hub: Any,
        config: LeagueConfig,
        *,
        state_file: Path | None = None,
        dashboard: str | None = None,
        client_factory=make_client,
    ) -> None:
        if config.table is None:
            raise LeagueError("league.table: a table needs a name in the league (--table NAME)")
        path = getattr(hub.log, "path", None)
        if path is None:
            raise LeagueError("the league publishes the table's SQLite log; this table keeps its log in memory")
        self.hub = hub
        self.config = config
        self.match, self.table = config.match, config.table
        self.url = config.url
        self.dashboard = dashboard
        self.state_file = state_file or Path(path).parent / f"league-{self.match}-{self.table}.json"
        saved = self._load_saved()
        self.instance: str = saved.get("instance") or new_instance_id()
        self._acked_saved: dict[str, int] = {k: int(v) for k, v in (saved.get("logs") or {}).items()}
        self._cursors: dict[str, _Cursor] = {}
        self._order: list[str] = []  # log names, oldest first
        self._lock = threading.Lock()  # cursors and the mid map (paho's thread acks)
        self._mids: dict[int, tuple[str, int]] = {}
        self._early: set[int] = set()  # acknowledged before publish() returned its mid
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._requests: queue.Queue[ResendRequest] = queue.Queue()
        self._thread: threading.Thread | None = None
        self.connected = False
        self._just_connected = False
        self._last_ack = time.monotonic()
        self._last_state = 0.0
        self._state_dirty = True
        self._saved_at = 0.0
        self._save_dirty = False
        self._warned: dict[str, float] = {}
        self.published = 0
        self.clash: str | None = None
        self.client = client_factory(
            self.url,
            f"uno-table-{self.match}-{self.table}-{self.instance}",
            username=config.username,
            password=config.password,
            tls=config.tls,
            clean_session=True,
            will=(self._t("status"), encode(self._status("offline"))),
        )
        self.client.on_connect = self._on_connect
        self.client.on_connect_fail = self._on_connect_fail
        self.client.on_disconnect = self._on_disconnect
        self.client.on_publish = self._on_publish
        self.client.on_message = self._on_message
        self._unsubscribe = hub.subscribe(self._on_hub_events)
        self._follow_hub()
        for name in self._acked_saved:  # logs left half sent before a restart
            p = Path(path).parent / f"{name}.db"
            if name not in self._cursors and p.exists():
                try:
                    with EventLog(p, create=False) as old:
                        unfinished = len(old) > self._acked_saved[name]
                except UnoTableError:
                    continue
                if unfinished:
                    self._add_cursor(p, front=True)

    # ----- saved progress

    def _load_saved(self) -> dict[str, Any]:
        try:
            data = json.loads(self.state_file.read_text())
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    def _save(self, force: bool = False) -> None:
        now = time.monotonic()
        if not self._save_dirty or (not force and now - self._saved_at < 1.0):
            return
        with self._lock:
            logs = dict(self._acked_saved)
            logs.update({c.name: c.acked for c in self._cursors.values()})
        data = {"instance": self.instance, "match": self.match, "table": self.table, "logs": logs}
        tmp = self.state_file.with_suffix(".tmp")
        try:
            with open(tmp, "w", encoding="utf-8") as fh:
                json.dump(data, fh)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.state_file)
        except OSError as exc:
            self._warn("save", f"cannot save what the broker acknowledged to {self.state_file}: {exc}")
            return
        self._saved_at = now
        self._save_dirty = False

    # ----- logs

    def _names_of(self, path: Path) -> list[str]:
        """Who plays the match of an older log: the table's match index, else the names file
        of a data dir from before the index."""
        if Path(self.hub.log.path) == path:
            return list(self.hub.names)
        store = getattr(self.hub, "matches", None)
        record = store.record_for(path) if store is not None else None
        if record is not None:
            return list(record.players)
        from app.hub import read_names

        return read_names(path) or []

    def _add_cursor(self, path: Path, front: bool = False) -> _Cursor:
        name = path.stem
        names = self._names_of(path)
        acked = self._acked_saved.get(name, 0)
        cur = _Cursor(path, names, acked)
        if not cur.names:
            cur.names = [f"Seat {i}" for i in range(cur.rules.match_config().players)]
        with self._lock:
            self._cursors[name] = cur
            if front:
                self._order.insert(0, name)
            else:
                self._order.append(name)
        return cur

    def _follow_hub(self) -> None:
        """The hub starts a new log for a new match: publish that one too (after the rest)."""
        path = Path(self.hub.log.path)
        if path.stem not in self._cursors:
            self._add_cursor(path)
            self._state_dirty = True

    def _current(self) -> _Cursor:
        return self._cursors[Path(self.hub.log.path).stem]

    # ----- lifecycle

    def start(self) -> TablePublisher:
        self.client.connect_async(self.url.host, self.url.port, keepalive=self.config.keepalive)
        self.client.loop_start()
        self._thread = threading.Thread(target=self._run, name=f"league-publisher-{self.table}", daemon=True)
        self._thread.start()
        print(f"League: table {self.table!r} of {self.match!r} publishes to {self.url} "
              f"(instance {self.instance})")  # fmt: skip
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Send what is waiting (up to `timeout`), say offline, and disconnect."""
        self._unsubscribe()
        deadline = time.monotonic() + timeout
        if self.connected:
            while time.monotonic() < deadline and self.pending() > 0 and self.connected:
                self._wake.set()
                time.sleep(0.05)
            try:
                self.client.publish(self._t("status"), encode(self._status("offline")), qos=1, retain=True)
            except Exception:  # noqa: BLE001 - closing anyway
                pass
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
        self._save(force=True)
        self.client.disconnect()
        self.client.loop_stop()
        with self._lock:
            for cur in self._cursors.values():
                cur.close()

    close = stop

    def cut(self) -> None:
        """Stop the client and drop its link without a goodbye (a Wi-Fi drop): the broker
        sends the last will; the table keeps playing and logging."""
        import socket

        self.connected = False
        self.client.loop_stop()
        sock = self.client.socket()
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def restore(self) -> None:
        """Start the client again after `cut`: it finds the link gone and reconnects."""
        self.client.loop_start()

    def pending(self) -> int:
        """Entries logged but not yet acknowledged by the broker."""
        with self._lock:
            cursors = list(self._cursors.values())
        return sum(c.length() - c.acked for c in cursors)

    def acked(self) -> dict[str, int]:
        with self._lock:
            return {c.name: c.acked for c in self._cursors.values()}

    # ----- paho callbacks (paho's thread)

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            self._warn("connect", f"the broker {self.url} refused the connection: {reason_code}")
            return
        client.subscribe([(self._t("resend"), 1), (self._t("status"), 1)])
        client.publish(self._t("status"), encode(self._status("online")), qos=1, retain=True)
        self.connected = True
        self._just_connected = True
        self._last_ack = time.monotonic()
        self._state_dirty = True
        self._wake.set()
        log.info("league: connected to %s", self.url)

    def _on_connect_fail(self, client, userdata) -> None:
        self._warn("connect", f"the broker {self.url} is not reachable; the table plays on and "
                              "publishes its log when the broker is back")  # fmt: skip

    def _on_disconnect(self, client, userdata, flags, reason_code, properties) -> None:
        was = self.connected
        self.connected = False
        if was and not self._stop.is_set():
            self._warn("disconnect", f"lost the broker {self.url} ({reason_text(reason_code)}); "
                                     "the table plays on and catches up when it is back")  # fmt: skip

    def _on_publish(self, client, userdata, mid, reason_code, properties) -> None:
        with self._lock:
            got = self._mids.pop(mid, None)
            if got is None:
                self._early.add(mid)
            else:
                self._ack(got)
        self._last_ack = time.monotonic()
        self._wake.set()

    def _ack(self, got: tuple[str, int]) -> None:
        cur = self._cursors.get(got[0])
        if cur is not None:
            cur.ack(got[1])
            self._save_dirty = True

    def _on_message(self, client, userdata, msg) -> None:
        if msg.topic.endswith("/resend"):
            try:
                req = decode(msg.payload, ResendRequest)
            except BadMessage as exc:
                self._warn("resend", f"ignored a resend request on {msg.topic}: {exc}")
                return
            self._requests.put(req)
            self._wake.set()
        elif msg.topic.endswith("/status"):
            try:
                st = decode(msg.payload, StatusMessage)
            except BadMessage:
                return
            if st.instance != self.instance and st.status == "online":
                self.clash = st.instance
                self._warn("clash", f"another table also calls itself {self.table!r} in {self.match!r} "
                                    f"(instance {st.instance}); the league counts only one of them: "
                                    "give one of them another --table name")  # fmt: skip

    def _on_hub_events(self, events, snap) -> None:
        self._state_dirty = True
        self._wake.set()

    # ----- the publishing loop (its own thread)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(0.25)
            self._wake.clear()
            try:
                self._tick()
            except UnoTableError as exc:
                self._warn("log", f"cannot read the log: {exc}")
            except InputError as exc:
                self._warn("log", f"a log entry cannot be folded: {exc}")

    def _tick(self) -> None:
        self._follow_hub()
        if not self.connected:
            self._save()
            return
        if self._just_connected:
            self._just_connected = False
            self._publish_state(force=True)
        while True:
            try:
                req = self._requests.get_nowait()
            except queue.Empty:
                break
            self._resend(req)
        now = time.monotonic()
        base = {"v": VERSION, "instance": self.instance}
        with self._lock:
            stalled = now - self._last_ack > STALL and any(c.sent > c.acked for c in self._cursors.values())
            if stalled:  # connected, yet nothing acknowledged for a long while: send again
                for c in self._cursors.values():
                    c.rewind(c.acked + 1)
                self._mids.clear()
                self._early.clear()
                self._last_ack = now
            names = list(self._order)
        for name in names:
            cur = self._cursors[name]
            room = WINDOW - (cur.sent - cur.acked)
            for seq, payload in cur.next_messages(room, base):
                info = self.client.publish(self._t("events"), payload, qos=1)
                with self._lock:  # (never around publish(): paho acks under its own lock)
                    if info.mid in self._early:
                        self._early.discard(info.mid)
                        self._ack((name, seq))
                    else:
                        self._mids[info.mid] = (name, seq)
                self.published += 1
        self._publish_state()
        self._drop_finished()
        self._save()

    def _resend(self, req: ResendRequest) -> None:
        cur = self._cursors.get(req.log)
        if cur is None:
            path = Path(self.hub.log.path).parent / f"{req.log}.db"
            if not path.exists():
                self._warn("resend", f"the league asked for log {req.log!r}, which this table does not have")
                return
            try:
                cur = self._add_cursor(path, front=True)
            except UnoTableError as exc:
                self._warn("resend", f"the league asked for log {req.log!r}: {exc}")
                return
        if req.from_ > cur.length() + 1:
            self._warn("resend", f"the league asked for log {req.log!r} from entry {req.from_}, "
                                 f"but it has {cur.length()} entries")  # fmt: skip
            return
        with self._lock:
            cur.rewind(req.from_)
        log.info("league: sending log %s again from entry %d", req.log, req.from_)

    def _drop_finished(self) -> None:
        current = Path(self.hub.log.path).stem
        with self._lock:
            for name in list(self._order):
                cur = self._cursors[name]
                if name != current and cur.acked >= cur.length():
                    self._acked_saved[name] = cur.acked
                    self._order.remove(name)
                    del self._cursors[name]
                    cur.close()
                    self._save_dirty = True

    def _publish_state(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force:
            due = self._state_dirty and now - self._last_state >= STATE_EVERY
            if not due and now - self._last_state < HEARTBEAT:
                return
        self._state_dirty = False
        self._last_state = now
        self.client.publish(self._t("state"), encode(self.state_message()), qos=1, retain=True)

    # ----- messages

    def _t(self, kind: str) -> str:
        return topic(self.match, self.table, kind)

    def _status(self, status: str) -> dict[str, Any]:
        return {"v": VERSION, "instance": self.instance, "status": status, "since": time.time()}

    def state_message(self) -> dict[str, Any]:
        """Round, scores, whose turn: the retained summary of this table now."""
        snap = self.hub.snapshot()
        ref = snap.get("referee") or {}
        cur = self._current()
        logs = dict(list(self._acked_saved.items())[-KEEP_LOGS:])
        logs = {k: v for k, v in logs.items() if k not in self._cursors}
        with self._lock:
            cursors = list(self._cursors.values())
        logs.update({c.name: c.length() for c in cursors})
        scores = ref.get("scores") or []
        seats = [
            {
                "seat": s["seat"], "player": s["name"], "cards": s.get("hand_count"),
                "score": scores[i] if i < len(scores) else None,
            }
            for i, s in enumerate(snap.get("seats") or [])
        ]  # fmt: skip
        return {
            "v": VERSION,
            "instance": self.instance,
            "log": cur.name,
            "seq": cur.length(),
            "logs": logs,
            "round": ref.get("round", 0),
            "phase": ref.get("phase", ""),
            "turn": ref.get("turn"),
            "seats": seats,
            "players": list(self.hub.names),
            "part": cur.rules.teams.table,
            "format": cur.rules.scoring.format,
            "match_over": bool(ref.get("match_over")),
            "dashboard": self.dashboard,
            "updated": time.time(),
        }

    def _warn(self, key: str, text: str, every: float = 30.0) -> None:
        now = time.monotonic()
        if now - self._warned.get(key, -1e9) >= every:
            self._warned[key] = now
            log.warning("league: %s", text)
