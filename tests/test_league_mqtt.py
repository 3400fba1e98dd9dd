"""Leagues over a real Mosquitto (issue 17), started by the tests on a free port.

Simulated tables (the referee-level simulator through real hubs and SQLite logs) publish
with the real publisher; the real league counts. Whatever breaks in between (the broker
killed mid-round, a table's link cut, the league killed, the broker down at start), the
league ends with every table's entries counted once and the scores of the tables' logs.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path

import pytest

from app.league.broker import LocalBroker, free_port, mosquitto_path
from app.league.league import League
from app.league.mqtt import LeagueConfig
from app.league.publisher import TablePublisher
from app.league.sim import EIGHT, SimTable, club_players, scores_from_logs
from table.referee import IN_ROUND
from table.standings import schedule_seatings

pytestmark = pytest.mark.skipif(
    mosquitto_path() is None,
    reason="mosquitto is not installed (apt-get install mosquitto): the league tests need a real broker",
)


@pytest.fixture
def folder(tmp_path):
    shm = Path("/dev/shm")  # every log entry is fsynced: tmpfs keeps a simulated match fast
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    path = Path(tempfile.mkdtemp(prefix="uno-league-", dir=shm))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def broker():
    with LocalBroker() as b:
        yield b


def wait_for(cond, timeout: float = 30.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout} s waiting for {what or cond}")


class Two:
    """Two simulated tables playing one 8-player rotating match, each with its publisher."""

    def __init__(self, folder: Path, url: str, match: str = "final", seed: int = 1):
        self.match = match
        self.tables = [SimTable(folder / n, n, EIGHT, part=p, seed=seed + p) for p, n in ((0, "A"), (1, "B"))]
        self.pubs = [
            TablePublisher(t.hub, LeagueConfig(broker=url, table=t.name, match=match, part=t.part)).start()
            for t in self.tables
        ]
        self.stop = threading.Event()

    def play(self, pause_at: int | None = None) -> None:
        self._pauses = [0, 0]
        for t in self.tables:
            t.pause_at = pause_at
            t.start(self.stop, matches=1)

    def resume(self, pause_at: int | None = None) -> None:
        self._pauses = [t.pauses for t in self.tables]
        for t in self.tables:
            t.pause_at = pause_at
            t.paused.clear()

    def wait_paused(self) -> None:
        def paused(t, before):
            return (t.pauses > before and t.waiting.is_set()) or t.done.is_set()

        wait_for(lambda: all(paused(t, b) for t, b in zip(self.tables, self._pauses, strict=True)), 60, "tables to pause")

    def wait_done(self) -> None:
        wait_for(lambda: all(t.done.is_set() for t in self.tables), 120, "the match to end")
        for t in self.tables:
            assert t.error is None, t.error

    def logs(self) -> dict[str, list[Path]]:
        return {t.name: [Path(t.hub.log.path)] for t in self.tables}

    def entries(self) -> dict[str, int]:
        return {f"{self.match}/{t.name}/{Path(t.hub.log.path).stem}": len(t.hub.log) for t in self.tables}

    def close(self) -> None:
        self.stop.set()
        for p in self.pubs:
            p.stop(timeout=1.0)
        for t in self.tables:
            t.close()


def all_counted(league: League, two: Two) -> bool:
    counted = league.counted()
    return all(counted.get(k, 0) == v for k, v in two.entries().items())


@pytest.mark.rule("T2")
def test_two_tables_play_the_rotating_match_and_the_league_scores_it_as_their_logs_do(folder, broker):
    league = League(broker.url, folder / "league.db", name="lg-a").start()
    two = Two(folder, broker.url)
    try:
        two.play()
        two.wait_done()
        wait_for(lambda: all_counted(league, two), 60, "the league to count every entry")
        assert league.sync()
        truth = scores_from_logs(two.logs())
        assert league.match_totals("final") == truth
        st = league.standings["final"]
        assert st["rounds_scored"] == 28 and st["over"] and st["winners"]
        assert league.counters["entries"] == sum(two.entries().values())  # each once
        # Each table's own dashboard said who sat where: the schedule's last round.
        for t in two.tables:
            assert [s["name"] for s in t.hub.snapshot()["seats"]] == schedule_seatings(EIGHT)[27]["tables"][t.part]
        view = league.overview()
        assert {x["table"]: x["counted"] for x in view["tables"]} == {"A": len(two.tables[0].hub.log), "B": len(two.tables[1].hub.log)}
        # The league killed and started again: the same standings, from its store at once
        # and after hearing the broker again, and nothing counted twice.
        league.kill()
        again = League(broker.url, folder / "league.db", name="lg-a")
        assert again.match_totals("final") == truth
        again.start()
        wait_for(lambda: again.connected, 20, "the league to reconnect")
        time.sleep(1.0)
        assert again.sync()
        assert again.match_totals("final") == truth and again.counters["entries"] == 0
        again.stop()
    finally:
        two.close()


def test_broker_killed_mid_round_and_a_table_cut_off_lose_nothing_and_count_nothing_twice(folder, broker, caplog):
    caplog.set_level(logging.WARNING, logger="uno_table.league")
    league = League(broker.url, folder / "league.db", name="lg-b").start()
    two = Two(folder, broker.url, seed=21)
    try:
        two.play(pause_at=250)
        two.wait_paused()
        assert all(t.hub.state.phase in IN_ROUND for t in two.tables), "paused mid-round"
        two.resume(pause_at=800)
        wait_for(lambda: all(len(t.hub.log) >= 300 for t in two.tables), 30, "play to go on")
        broker.kill()  # SIGKILL while entries fly, no persistence: whatever it held is gone
        two.wait_paused()  # the tables played on without a broker
        assert all(p.pending() > 0 for p in two.pubs)
        broker.start()  # same port, empty
        wait_for(lambda: all_counted(league, two), 60, "the league to catch up after the broker restart")
        # Table A's network is cut (its client stopped), it plays on, and it comes back.
        two.pubs[0].cut()
        two.resume(pause_at=1200)
        two.wait_paused()
        wait_for(lambda: league.overview()["tables"][0]["status"] == "offline", 30, "the last will")
        two.pubs[0].restore()
        two.resume()
        two.wait_done()
        wait_for(lambda: all_counted(league, two), 60, "the league to count every entry")
        assert league.sync()
        assert league.counters["entries"] == sum(two.entries().values())  # nothing twice
        assert league.match_totals("final") == scores_from_logs(two.logs())  # nothing lost
        assert league.standings["final"]["rounds_scored"] == 28
        assert "lost the broker" in caplog.text
    finally:
        two.close()
        league.stop()


def test_league_killed_mid_match_comes_back_with_the_same_standings(folder, broker):
    league = League(broker.url, folder / "league.db", name="lg-c").start()
    two = Two(folder, broker.url, seed=31)
    try:
        two.play(pause_at=700)
        two.wait_paused()
        wait_for(lambda: all_counted(league, two), 30, "entries before the league dies")
        assert league.sync()
        standings, counted = dict(league.standings), league.counted()
        league.kill()
        two.resume(pause_at=1400)  # entries the league does not see while it is down
        two.wait_paused()
        again = League(broker.url, folder / "league.db", name="lg-c")
        assert again.standings == standings and again.counted() == counted
        again.start()
        two.resume()
        two.wait_done()
        wait_for(lambda: all_counted(again, two), 60, "the restarted league to count every entry")
        assert again.sync()
        assert again.counters["entries"] == sum(two.entries().values()) - sum(counted.values())
        assert again.match_totals("final") == scores_from_logs(two.logs())
        again.stop()
    finally:
        two.close()


def test_broker_down_at_start_tables_play_on_and_catch_up_and_silent_tables_are_named(folder, caplog):
    caplog.set_level(logging.WARNING, logger="uno_table.league")
    port = free_port()
    url = f"mqtt://127.0.0.1:{port}"
    league = League(url, folder / "league.db", expect=("club/A", "club/B", "club/Z"), quiet=0.0, name="lg-d").start()
    tables = [SimTable(folder / n, n, club_players(i), seed=40 + i) for i, n in enumerate("AB")]
    pubs = [TablePublisher(t.hub, LeagueConfig(broker=url, table=t.name, match="club")).start() for t in tables]
    broker = None
    try:
        for t in tables:
            t.play(None, rounds=2)  # nobody to publish to: the tables play on
        assert all(p.pending() == len(t.hub.log) > 0 for p, t in zip(pubs, tables, strict=True))
        wait_for(lambda: "not reachable" in caplog.text, 20, "the publisher to say the broker is down")
        assert set(league.not_heard_from()) == {"club/A", "club/B", "club/Z"}
        broker = LocalBroker(port=port).start()
        want = {f"club/{t.name}/{Path(t.hub.log.path).stem}": len(t.hub.log) for t in tables}
        wait_for(lambda: all(league.counted().get(k) == v for k, v in want.items()), 60, "catch-up")
        assert league.sync()
        assert league.not_heard_from() == ["club/Z"]
        logs = {t.name: [Path(t.hub.log.path)] for t in tables}
        assert league.match_totals("club") == scores_from_logs(logs)
        # A table restarting its publisher sends only what the broker has not acknowledged.
        pubs[0].stop()
        tables[0].play(None, rounds=1)
        pubs[0] = TablePublisher(tables[0].hub, LeagueConfig(broker=url, table="A", match="club")).start()
        wait_for(lambda: pubs[0].pending() == 0, 30, "the restarted publisher")
        assert pubs[0].published == len(tables[0].hub.log) - want[f"club/A/{Path(tables[0].hub.log.path).stem}"]
    finally:
        for p in pubs:
            p.stop(timeout=1.0)
        for t in tables:
            t.close()
        league.stop()
        if broker is not None:
            broker.stop()


def test_a_table_name_used_twice_is_reported_and_counted_once(folder, broker, caplog):
    caplog.set_level(logging.WARNING)
    league = League(broker.url, folder / "league.db", name="lg-e").start()
    first = SimTable(folder / "one", "A", club_players(0), seed=51)
    second = SimTable(folder / "two", "A", club_players(1), seed=52)
    p1 = TablePublisher(first.hub, LeagueConfig(broker=broker.url, table="A", match="club")).start()
    try:
        first.play(None, rounds=1)
        key = f"club/A/{Path(first.hub.log.path).stem}"
        wait_for(lambda: league.counted().get(key) == len(first.hub.log), 30, "the first table")
        p2 = TablePublisher(second.hub, LeagueConfig(broker=broker.url, table="A", match="club")).start()
        second.play(None, rounds=1)
        wait_for(lambda: p2.pending() == 0, 30, "the second table's entries")
        wait_for(lambda: "used by two tables" in caplog.text, 20, "the league to report the clash")
        assert league.sync()
        assert league.counted() == {key: len(first.hub.log)}
        assert league.tables[("club", "A")].clash == p2.instance
        wait_for(lambda: p2.clash == p1.instance or p1.clash == p2.instance, 10, "a publisher to notice")
        p2.stop()
    finally:
        p1.stop()
        first.close()
        second.close()
        league.stop()


def test_demo_tables_plays_a_club_and_the_league_equals_the_logs(tmp_path):
    import json
    import subprocess
    import sys

    env = {**os.environ, "UNO_TABLE_DATA": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-m", "app.cli", "demo", "--tables", "3", "--headless", "--json", "--rounds", "2", "--seed", "4"],
        capture_output=True, text=True, timeout=120, env=env, cwd=Path(__file__).resolve().parents[1],
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["kind"] == "club" and report["league_matches_logs"] is True
    assert report["rounds"] == {"T1": 2, "T2": 2, "T3": 2} and len(report["league_totals"]) == 12


@pytest.mark.slow
def test_run_with_league_publishes_the_real_table_and_says_offline_when_it_stops(tmp_path, broker):
    """`uno-table run --league URL --table NAME`: the host starts a round on the dashboard, the
    entries reach the league, SIGTERM sends what is left and the table goes offline."""
    import http.cookiejar
    import json
    import signal
    import subprocess
    import sys
    import urllib.request

    from table.log import EventLog

    cfg = tmp_path / "uno-table.yaml"
    cfg.write_text("players: [Ana, Ben, Cleo]\nvision:\n  source: {type: sim, seed: 1, plays: 3}\n"
                   "  detector: {type: sim-truth}\n")  # fmt: skip
    league = League(broker.url, tmp_path / "league.db", name="lg-run").start()
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "run", "--config", str(cfg), "--mock-gpio", "--host", "127.0.0.1",
         "--port", str(port), "--data-dir", str(tmp_path / "data"), "--league", broker.url, "--table", "pi1"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=Path(__file__).resolve().parents[1],
    )  # fmt: skip
    try:
        pin = None
        deadline = time.monotonic() + 90
        for line in proc.stdout:
            if "host PIN:" in line:
                pin = line.split("host PIN:")[1].split()[0]
            if line.startswith("League:") or time.monotonic() > deadline:
                break
        assert pin, "the table printed no host PIN"
        jar = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

        def post(path, body, csrf=None):
            req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", json.dumps(body).encode(),
                                         {"Content-Type": "application/json", **({"X-CSRF-Token": csrf} if csrf else {})})  # fmt: skip
            with jar.open(req, timeout=10) as r:
                return json.loads(r.read())

        csrf = post("/api/login", {"pin": pin})["csrf"]
        post("/api/host/command", {"kind": "start"}, csrf)
        wait_for(lambda: any(v > 0 for v in league.counted().values()), 30, "the table's first entries")
        wait_for(lambda: league.overview()["tables"][0]["status"] == "live", 10, "the table live")
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
        assert proc.returncode == 0
        (db,) = (tmp_path / "data" / "matches").glob("match-*.db")
        with EventLog(db, create=False) as log:
            n = len(log)
        wait_for(lambda: league.counted() == {f"club/pi1/{db.stem}": n}, 20, "every entry counted")
        wait_for(lambda: league.overview()["tables"][0]["status"] == "offline", 20, "the table offline")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        league.stop()
