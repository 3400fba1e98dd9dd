"""Leagues (issue 17) without a network: the two-table rotating match (T2, 8 players) in the
referee and in table.standings, club standings, the `league:` config, broker URLs, and the
league consumer fed messages directly: good ones from a real table's log, and bad ones
(malformed, foreign, from the future, a name used twice) that must change nothing."""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
from pathlib import Path
from types import SimpleNamespace

import pytest

from app.config import AppConfig, load_app_config
from app.league.league import League
from app.league.mqtt import LeagueConfig, LeagueError, encode, parse_broker_url, parse_topic
from app.league.publisher import _Cursor
from app.league.sim import EIGHT, SimTable, club_players, scores_from_logs, table_match_from_log
from table.errors import ConfigError
from table.matches import Match, MatchConfig
from table.referee import MATCH_OVER
from table.rules import RulesConfig, load_rules
from table.simulator import Simulator
from table.standings import (
    LeagueDataError,
    TableMatch,
    club_standings,
    parse_rounds,
    round_records,
    schedule_seatings,
    two_table_match,
)
from table.teams import rotating_schedule

# --------------------------------------------------------------------------- helpers


@pytest.fixture
def tmp_path(tmp_path):
    """Logs on tmpfs where there is one: every log entry is fsynced, and a disk under load
    makes that the slowest part of a simulated match."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="uno-league-", dir=shm))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def half_rules(part: int) -> RulesConfig:
    return load_rules("official", overrides={"players": 4, "teams": {"mode": "rotating", "table": part}})


def play_half(part: int, seed: int) -> Simulator:
    sim = Simulator(half_rules(part), seed=seed)
    while sim.state.phase != MATCH_OVER:
        sim.play_round()
    return sim


class FakeClient:
    """Stands in for paho's client: records what the league publishes."""

    def __init__(self, *args, **kwargs):
        self.published: list[tuple[str, bytes]] = []
        self.on_connect = self.on_connect_fail = self.on_disconnect = self.on_message = None

    def connect_async(self, *a, **k): ...
    def loop_start(self): ...
    def loop_stop(self): ...
    def disconnect(self): ...
    def subscribe(self, *a, **k): ...
    def socket(self):
        return None

    def publish(self, topic, payload=None, qos=0, retain=False):
        self.published.append((topic, payload))
        return SimpleNamespace(mid=len(self.published))


def offline_league(path: Path, **kw) -> League:
    league = League("mqtt://127.0.0.1:1", path, client_factory=FakeClient, **kw).start()
    league.connected = True  # as if connected: it may ask tables to resend
    return league


def table_messages(folder: Path, name: str, players, part=None, seed=1, rounds=None, instance="i-" + "a" * 8):
    """A simulated table plays; its log becomes the messages its publisher would send."""
    t = SimTable(folder / name, name, players, part=part, seed=seed)
    t.play(None, rounds=rounds)
    cur = _Cursor(Path(t.hub.log.path), list(players), 0)
    msgs = cur.next_messages(10**6, {"v": 1, "instance": instance})
    cur.close()
    t.close()
    return Path(t.hub.log.path), msgs


# --------------------------------------------------------------------------- rules and referee


@pytest.mark.rule("T2")
def test_eight_player_rotating_is_refused_on_one_table_and_says_how_to_play_it():
    with pytest.raises(ConfigError, match="league match"):
        load_rules("official", overrides={"players": 8, "teams": {"mode": "rotating"}})
    with pytest.raises(ConfigError, match="teams.table"):
        load_rules("official", overrides={"players": 4, "teams": {"mode": "fixed", "table": 0}})
    rules = half_rules(1)
    assert rules.players == 4 and rules.match_config().players == 8 and rules.match_config().table == 1


def test_rotating_rules_survive_the_log_round_trip():
    # A log stores every field: the default target must not read back as one set on purpose.
    for rules in (half_rules(0), load_rules("official", overrides={"players": 4, "teams": {"mode": "rotating"}})):
        assert RulesConfig.model_validate_json(rules.model_dump_json()) == rules


@pytest.mark.rule("T2")
def test_each_table_referee_plays_its_half_of_the_28_round_schedule_on_its_own():
    schedule = rotating_schedule(8)
    sims = [play_half(0, 5), play_half(1, 6)]
    for part, sim in enumerate(sims):
        match = sim.state.match
        assert len(match.rounds) == 28 and match.over and match.outcome.winners == ()
        for k, rec in enumerate(match.rounds):
            (result,) = rec.results
            assert set(result.seats) == set(schedule[k].tables[part])
    # Every round the two tables seat all 8 players once.
    for k in range(28):
        a = sims[0].state.match.rounds[k].results[0].seats
        b = sims[1].state.match.rounds[k].results[0].seats
        assert sorted(a + b) == list(range(8))


@pytest.mark.rule("T2")
def test_the_league_scores_two_halves_exactly_as_one_match_of_both_tables():
    sims = [play_half(0, 7), play_half(1, 8)]
    halves = [
        TableMatch(table=f"T{p}", log="x", players=EIGHT, part=p, rounds=parse_rounds(round_records(s.state.match)))
        for p, s in enumerate(sims)
    ]
    got = two_table_match(halves)
    whole = Match(MatchConfig(players=8, teams="rotating"))
    for k in range(28):
        whole.apply([sims[0].state.match.rounds[k].results[0], sims[1].state.match.rounds[k].results[0]])
    assert got.totals == whole.totals and got.over and got.outcome == whole.outcome
    # Each player's total is the sum of their two tables' shares (seeds 000, 003).
    for p in range(8):
        assert got.totals[p] == sum(s.state.match.seat_totals[p] for s in sims)


def test_two_halves_that_are_not_one_match_are_refused():
    sim = play_half(0, 9)
    rounds = parse_rounds(round_records(sim.state.match))
    a = TableMatch(table="A", log="x", players=EIGHT, part=0, rounds=rounds)
    with pytest.raises(LeagueDataError, match="table 0 and table 1"):
        two_table_match([a, a.model_copy(update={"table": "B"})])
    other = tuple(reversed(EIGHT))
    with pytest.raises(LeagueDataError, match="same 8 players"):
        two_table_match([a, TableMatch(table="B", log="y", players=other, part=1, rounds=rounds)])


def test_schedule_seatings_name_who_sits_where():
    seats = schedule_seatings(EIGHT)
    assert len(seats) == 28
    for r in seats:
        assert sorted(sum(r["tables"], [])) == sorted(EIGHT)


def test_club_standings_by_total_and_by_wins():
    m1 = TableMatch(table="A", log="1", players=("Ana", "Ben"), over=True, winners=(0,),
                    rounds=parse_rounds([{"number": 1, "result": {"seats": [0, 1], "winner": 0, "hands": {"1": ["red-5"]}},
                                          "points": {"0": 5, "1": 0}}]))  # fmt: skip
    m2 = TableMatch(table="B", log="2", players=("Ben", "Cleo"), over=True, winners=(1,),
                    rounds=parse_rounds([{"number": 1, "result": {"seats": [0, 1], "winner": 1, "hands": {"0": ["wild"]}},
                                          "points": {"0": 0, "1": 50}}]))  # fmt: skip
    m3 = TableMatch(table="B", log="3", players=("Ben", "Cleo"), over=True, winners=(0,),
                    rounds=parse_rounds([{"number": 1, "result": {"seats": [0, 1], "winner": 0, "hands": {"1": ["red-1"]}},
                                          "points": {"0": 1, "1": 0}}]))  # fmt: skip
    by_total = club_standings([m1, m2, m3], "total")
    assert [(r.player, r.total, r.won, r.matches) for r in by_total] == [
        ("Cleo", 50, 1, 2), ("Ana", 5, 1, 1), ("Ben", 1, 1, 3)
    ]  # fmt: skip
    by_wins = club_standings([m1, m2, m3], "wins")
    assert [r.player for r in by_wins] == ["Cleo", "Ana", "Ben"]
    assert by_total[2].tables == ("A", "B")


def test_round_data_that_does_not_hold_together_is_refused():
    with pytest.raises(LeagueDataError, match="round 2 where round 1"):
        parse_rounds([{"number": 2, "result": {"seats": [0, 1], "winner": 0}, "points": {}}])
    with pytest.raises(LeagueDataError):
        parse_rounds([{"number": 1, "result": {"seats": [0, 0]}, "points": {}}])
    with pytest.raises(LeagueDataError):
        parse_rounds("nope")


# --------------------------------------------------------------------------- config and URLs


def test_broker_urls():
    u = parse_broker_url("mqtt://pi.local")
    assert (u.host, u.port, u.tls) == ("pi.local", 1883, False)
    u = parse_broker_url("mqtts://bob:s%40cret@broker.example:8884")
    assert (u.host, u.port, u.tls, u.username, u.password) == ("broker.example", 8884, True, "bob", "s@cret")
    assert "s@cret" not in str(u)
    for bad, why in [
        ("pi.local:1883", "scheme is missing"),
        ("http://pi.local", "not one of"),
        ("mqtt://", "no host"),
        ("mqtt://pi.local:99999", "not a URL"),
        ("mqtt://pi.local:abc", "not a URL"),
        ("mqtt://pi.local/x", "no path"),
        ("", "got nothing"),
    ]:
        with pytest.raises(LeagueError, match=why):
            parse_broker_url(bad)


def test_topics_are_ours_or_ignored():
    assert parse_topic("uno-table/final/A/events") == ("final", "A", "events")
    for foreign in ("uno-table/final/A/other", "uno-table/final/A", "home/kitchen/temp/events", "uno-table/fi nal/A/state"):
        assert parse_topic(foreign) is None


def test_the_league_config_section(tmp_path):
    cfg = tmp_path / "uno-table.yaml"
    cfg.write_text(
        "players: [Ana, Ben, Cleo, Dev, Eli, Fay, Gus, Hana]\nrules: {teams: {mode: rotating}}\n"
        "league: {broker: 'mqtt://pi.local', table: A, match: final, part: 1, username: u, password: p}\n"
    )
    config = load_app_config(cfg)
    rules = config.rules_config()
    assert rules.players == 4 and rules.teams.table == 1 and config.league.url.host == "pi.local"
    # The command line's settings go over the file's section.
    assert load_app_config(cfg, league={"table": "B", "part": 0}).league.table == "B"
    # Without a league, 8 rotating players on one table are refused, saying how to play it.
    cfg.write_text("players: [Ana, Ben, Cleo, Dev, Eli, Fay, Gus, Hana]\nrules: {teams: {mode: rotating}}\n")
    with pytest.raises(ConfigError, match="league match"):
        load_app_config(cfg)
    for bad, why in [
        ("league: {broker: 'pi.local'}", "scheme is missing"),
        ("league: {broker: 'mqtt://pi', table: 'a/b'}", "topic level"),
        ("league: {broker: 'mqtt://pi', colour: red}", "colour"),
        ("league: {broker: 'mqtt://pi', part: 0}", "8 players"),
    ]:
        cfg.write_text(bad + "\n")
        with pytest.raises(ConfigError, match=why):
            load_app_config(cfg)


def test_a_table_of_a_two_table_match_shows_who_sits_at_its_four_seats(tmp_path):
    t = SimTable(tmp_path / "B", "B", EIGHT, part=1, seed=3)
    t.play(None, rounds=5)  # round 5: the second block of partners
    snap = t.hub.snapshot()
    sitting = [s["name"] for s in snap["seats"]]
    assert sitting == schedule_seatings(EIGHT)[4]["tables"][1]
    assert len(t.hub.scores()["totals"]) == 8
    t.close()


# --------------------------------------------------------------------------- the consumer, offline


def test_a_league_fed_a_two_table_match_scores_it_as_the_logs_do(tmp_path):
    paths, feeds = {}, []
    for part, name in ((0, "A"), (1, "B")):
        path, msgs = table_messages(tmp_path, name, EIGHT, part=part, seed=part + 11, instance=f"inst-{name}")
        paths[name] = [path]
        feeds.append((name, msgs))
    league = offline_league(tmp_path / "league.db")
    for name, msgs in feeds:
        league.feed(f"uno-table/final/{name}/status", encode({"v": 1, "instance": f"inst-{name}", "status": "online"}))
        for _, payload in msgs:
            league.feed(f"uno-table/final/{name}/events", payload)
    for _, payload in feeds[0][1][:50]:  # a table sending again after a reconnect
        league.feed("uno-table/final/A/events", payload)
    assert league.sync()
    truth = scores_from_logs(paths)
    assert league.match_totals("final") == truth
    assert league.counters["entries"] == sum(len(m) for _, m in feeds)
    assert league.counters["duplicates"] == 50
    st = league.standings["final"]
    assert st["kind"] == "two-table" and st["rounds_scored"] == 28 and st["over"]
    league.stop()
    # Restarted: the same standings from its own store, before hearing anything.
    again = League("mqtt://127.0.0.1:1", tmp_path / "league.db", client_factory=FakeClient)
    assert again.match_totals("final") == truth
    assert again.counted() == {f"final/{n}/{paths[n][0].stem}": len(m) for n, m in feeds}
    again.store.close()


def test_bad_messages_change_nothing_and_say_why(tmp_path, caplog):
    caplog.set_level(logging.WARNING, logger="uno_table.league")
    path, msgs = table_messages(tmp_path, "A", club_players(0), seed=4, rounds=2, instance="inst-A")
    league = offline_league(tmp_path / "league.db", expect=("club/A", "club/Z"), quiet=0.0)
    first = json.loads(msgs[0][1])
    feed = league.feed
    feed("uno-table/club/A/events", b"{not json")
    feed("uno-table/club/A/events", b"[1, 2]")
    feed("uno-table/club/A/events", encode({**first, "v": 2}))
    feed("uno-table/club/A/state", encode({"v": 1, "instance": "inst-A", "dashboard": "javascript:alert(1)"}))
    feed("uno-table/club/A/whatever", b"{}")
    feed("home/kitchen/temp", b"21.5")
    # A sequence number from the future, before anything: not counted, the table is asked.
    feed("uno-table/club/A/events", encode({**json.loads(msgs[5][1]), "seq": 10**6}))
    # Entry 1 without who plays: not counted.
    feed("uno-table/club/A/events", encode({k: v for k, v in first.items() if k != "meta"}))
    assert league.sync()
    assert league.counted().get(f"club/A/{path.stem}", 0) == 0
    assert league.match_totals("club") == {}
    assert league.counters["bad"] >= 5 and league.counters["foreign"] == 2 and league.counters["gaps"] == 1
    asks = [(t, json.loads(p)) for t, p in league.client.published if t.endswith("/resend")]
    assert asks == [("uno-table/club/A/resend", {"v": 1, "log": path.stem, "from": 1})]
    text = caplog.text
    for words in ("not JSON", "expected a JSON object", "not a table's topic", "sent entry 1000000",
                  "says nothing about its players"):  # fmt: skip
        assert words in text, words
    # The real entries then count, every one once; a round claiming a ninth player does not.
    for _, payload in msgs:
        feed("uno-table/club/A/events", payload)
    assert league.sync()
    assert league.counted()[f"club/A/{path.stem}"] == len(msgs)
    assert league.match_totals("club") == scores_from_logs({"A": [path]})
    rounds_msg = next(json.loads(p) for _, p in msgs if "rounds" in json.loads(p))
    forged = {**rounds_msg, "seq": len(msgs) + 1, "rounds": [{**rounds_msg["rounds"][0], "points": {"9": 500}}]}
    feed("uno-table/club/A/events", encode(forged))
    assert league.sync()
    assert league.counted()[f"club/A/{path.stem}"] == len(msgs)
    assert league.match_totals("club") == scores_from_logs({"A": [path]})
    assert "round data does not hold together" in caplog.text
    # Tables it was told to expect and has not heard from.
    assert league.not_heard_from() == ["club/Z"]
    assert league.overview()["not_heard_from"] == ["club/Z"]
    league.stop()


def test_a_table_name_used_twice_counts_only_the_first(tmp_path, caplog):
    caplog.set_level(logging.WARNING, logger="uno_table.league")
    p1, m1 = table_messages(tmp_path / "one", "A", club_players(0), seed=1, rounds=1, instance="first")
    p2, m2 = table_messages(tmp_path / "two", "A", club_players(1), seed=2, rounds=1, instance="second")
    league = offline_league(tmp_path / "league.db")
    league.feed("uno-table/club/A/status", encode({"v": 1, "instance": "first", "status": "online"}))
    league.feed("uno-table/club/A/status", encode({"v": 1, "instance": "second", "status": "online"}))
    for (_, a), (_, b) in zip(m1, m2, strict=False):
        league.feed("uno-table/club/A/events", a)
        league.feed("uno-table/club/A/events", b)
    assert league.sync()
    assert league.counted() == {f"club/A/{p1.stem}": len(m1)}
    assert league.tables[("club", "A")].clash == "second"
    assert "used by two tables" in caplog.text
    names = {r["player"] for r in league.standings["club"]["standings"]}
    assert names == set(club_players(0))
    league.stop()


def test_table_match_from_log_reads_what_the_table_scored(tmp_path):
    t = SimTable(tmp_path / "A", "A", club_players(0), seed=5)
    t.play(None, rounds=3)
    m = table_match_from_log(Path(t.hub.log.path), "A")
    assert len(m.rounds) == 3 and m.players == tuple(club_players(0))
    assert sum(r.points.get(0, 0) for r in m.rounds) == t.hub.scores()["totals"][club_players(0)[0]]
    t.close()


# --------------------------------------------------------------------------- the page


def test_the_league_page_and_its_api():
    from web_ui.league import create_league_app

    class View:
        def overview(self):
            return {"broker": "mqtt://x:1883", "connected": True, "tables": [], "matches": [], "not_heard_from": ["club/Z"]}

    client = create_league_app(View()).test_client()
    page = client.get("/")
    assert page.status_code == 200 and b"league.js" in page.data
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]
    data = client.get("/api/league").get_json()
    assert data["not_heard_from"] == ["club/Z"]
    assert client.get("/static/league.js").status_code == 200


def test_league_config_needs_a_broker():
    with pytest.raises(Exception, match="broker"):
        LeagueConfig.model_validate({"table": "A"})
    assert AppConfig().league is None


# --------------------------------------------------------------------------- the commands


def test_commands_refuse_a_broker_url_that_does_not_parse(tmp_path, capsys):
    from app.cli import main

    cfg = tmp_path / "uno-table.yaml"
    cfg.write_text("players: [Ana, Ben, Cleo, Dev]\n")
    assert main(["run", "--config", str(cfg), "--league", "pi.local:1883", "--table", "A"]) == 2
    assert "scheme is missing" in capsys.readouterr().err
    assert main(["run", "--config", str(cfg), "--league", "mqtt://pi.local"]) == 2
    assert "--table NAME" in capsys.readouterr().err
    assert main(["league", "--broker", "mqtt://", "--store", str(tmp_path / "l.db")]) == 2
    assert "no host" in capsys.readouterr().err


def test_demo_tables_says_how_to_install_mosquitto_when_it_is_missing(tmp_path, monkeypatch, capsys):
    import app.league.broker as broker
    from app.cli import main

    monkeypatch.setattr(broker, "mosquitto_path", lambda: None)
    monkeypatch.setenv("UNO_TABLE_DATA", str(tmp_path))
    assert main(["demo", "--tables", "2", "--headless"]) == 2
    assert "apt-get install mosquitto" in capsys.readouterr().err


def test_a_new_match_at_a_two_table_match_table_stays_that_table(tmp_path):
    t = SimTable(tmp_path / "A", "A", EIGHT, part=1, seed=2)
    t.hub.submit({"kind": "new-match"}, source="host")
    rules = t.hub.rules_config
    assert rules.players == 4 and rules.teams.table == 1 and t.hub.names == list(EIGHT)
    assert Path(t.hub.log.path).parent == tmp_path / "A"
    t.close()
