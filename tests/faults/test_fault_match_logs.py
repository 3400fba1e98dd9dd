"""Items 1, 2 and 4 of issue 16: the match log and restarts.

A damaged current match stops the start with one message naming the file and the way on
(never a silent switch to another match); the current match is an explicit pointer, so a
clock that goes backwards or two setups in one second cannot make a restart resume the
wrong match; match numbers only grow; the damaged log's readable part can be salvaged."""

from __future__ import annotations

import time

import pytest
from faultkit import DAMAGES, cli, damage, make_log, start_run, stop

from app import commands
from app.hub import TableHub
from table.errors import LogError
from table.rules import load_rules

RULES = load_rules("official", overrides={"players": 3})
NAMES = ["Ana", "Ben", "Cleo"]
QUIET = lambda *_: None  # noqa: E731


def open_match(match_dir, names=NAMES, new=False):
    """`run`'s choice of match at start: (log, names, store-or-None)."""
    got = commands._open_match(match_dir, RULES, names, new, out=QUIET)
    if len(got) == 3:
        store, record, log = got
        return log, record.players, store
    log, names = got  # the code before issue 16
    return log, names, None


def close(log, store):
    log.close()
    if store is not None:
        store.close()


def play_some(hub, n_rounds=1):
    hub.submit({"kind": "start_round", "dealer": 0})
    hub.submit({"kind": "flip", "card": "red-5"})
    hub.submit({"kind": "play", "cards": ["red-7"]})


def setup_two_matches(match_dir):
    """Match A (unfinished, older) then match B set up from the dashboard (current)."""
    log, names, store = open_match(match_dir, new=True)
    hub = TableHub(log, names, match_dir=match_dir, matches=store) if store else TableHub(log, names, match_dir=match_dir)
    play_some(hub)
    first = log.path
    hub.submit({"kind": "setup", "players": ["Dee", "Eve", "Fay"]})
    play_some(hub)
    second = hub.log.path
    hub.close()
    if store is not None:
        store.close()
    return first, second


@pytest.mark.parametrize("how", DAMAGES)
def test_a_damaged_current_match_stops_the_start_naming_the_file(tmp_path, how):
    match_dir = tmp_path / "matches"
    older, current = setup_two_matches(match_dir)
    damage(current, how)
    files_before = sorted(p.name for p in match_dir.glob("match-*.db"))
    with pytest.raises(LogError) as err:
        log, names, store = open_match(match_dir)
        resumed = log.path
        close(log, store)
        pytest.fail(f"started on {resumed} although the current match {current} is damaged")
    msg = str(err.value)
    assert str(current) in msg and "salvage" in msg and "--new-match" in msg and "integrity_check" in msg
    assert sorted(p.name for p in match_dir.glob("match-*.db")) == files_before  # nothing new was made


def test_mid_file_damage_is_a_log_error_not_a_raw_sqlite_traceback(tmp_path):
    from table.log import EventLog

    db = tmp_path / "m.db"
    make_log(db, rounds=3)
    damage(db, "mid-file")
    with pytest.raises(LogError, match="m.db"):
        with EventLog(db, create=False) as log:
            log.inputs()


def test_run_with_a_damaged_current_match_prints_one_line_and_creates_nothing(tmp_path):
    data = tmp_path / "data"
    older, current = setup_two_matches(data / "matches")
    damage(current, "mid-file")
    before = sorted(p.name for p in (data / "matches").glob("match-*"))
    proc, port, lines = start_run(tmp_path, data=data)
    out = "".join(lines) + stop(proc)
    assert proc.returncode == 2, out
    assert "Traceback" not in out and str(current) in out and "uno-table salvage" in out
    assert sorted(p.name for p in (data / "matches").glob("match-*")) == before


def test_a_clock_going_backwards_still_resumes_the_match_set_up_last(tmp_path, monkeypatch):
    match_dir = tmp_path / "matches"
    log, names, store = open_match(match_dir, new=True)
    hub = TableHub(log, names, match_dir=match_dir, matches=store) if store else TableHub(log, names, match_dir=match_dir)
    real_time = time.time
    monkeypatch.setattr(time, "time", lambda: real_time() - 400 * 86400)  # no RTC, no network yet
    monkeypatch.setattr(time, "strftime", lambda fmt, *a: "20240101-000000")
    monkeypatch.setattr(time, "time_ns", lambda: 5)  # an earlier sub-second suffix too
    hub.submit({"kind": "setup", "players": ["Dee", "Eve", "Fay"]})
    last = hub.log.path
    hub.close()
    if store is not None:
        store.close()
    log, names, store = open_match(match_dir)
    try:
        assert log.path == last and names == ["Dee", "Eve", "Fay"]
    finally:
        close(log, store)


def test_two_setups_in_one_second_resume_the_later_one(tmp_path, monkeypatch):
    match_dir = tmp_path / "matches"
    log, names, store = open_match(match_dir, new=True)
    hub = TableHub(log, names, match_dir=match_dir, matches=store) if store else TableHub(log, names, match_dir=match_dir)
    monkeypatch.setattr(time, "strftime", lambda fmt, *a: "20250601-120000")
    suffixes = iter([999_000, 1_000])  # time_ns() % 10**6 is not in time order
    monkeypatch.setattr(time, "time_ns", lambda: next(suffixes))
    hub.submit({"kind": "setup", "players": ["Dee", "Eve", "Fay"]})
    hub.submit({"kind": "setup", "players": ["Gus", "Hana", "Ivo"]})
    last = hub.log.path
    hub.close()
    if store is not None:
        store.close()
    log, names, store = open_match(match_dir)
    try:
        assert log.path == last and names == ["Gus", "Hana", "Ivo"]
    finally:
        close(log, store)


def test_a_finished_current_match_starts_a_new_one_not_an_older_unfinished_one(tmp_path):
    from app.matchfiles import MatchStore

    match_dir = tmp_path / "matches"
    older, current = setup_two_matches(match_dir)
    store = MatchStore(match_dir)
    record = store.current()
    assert record.path == current
    store.close()
    # B ends: the host ends the round with a winner until the match is over is slow; a
    # one-round match format is the honest way: replace B by a finished one-round match.
    from table.log import EventLog
    from table.simulator import Simulator

    rules = load_rules("official", overrides={"players": 3, "scoring": {"target": 1}})
    store = MatchStore(match_dir)
    record, log = store.new_match(rules, ["Gus", "Hana", "Ivo"])
    Simulator(rules, seed=3, on_input=log.append).play_round()
    log.close()
    store.close()
    with EventLog(record.path, create=False) as done:
        from table.log import rebuild_state
        from table.referee import MATCH_OVER

        assert rebuild_state(done.rules, done.inputs()).phase == MATCH_OVER
    log, names, store = open_match(match_dir)
    try:
        assert log.path not in (older, current, record.path)
    finally:
        close(log, store)


def test_match_numbers_only_grow_even_when_the_index_is_lost(tmp_path):
    from app.matchfiles import INDEX_NAME, MatchStore

    match_dir = tmp_path / "matches"
    with MatchStore(match_dir) as store:
        numbers = [store.new_match(RULES, NAMES)[0].number for _ in range(3)]
    assert numbers == [1, 2, 3]
    for p in match_dir.glob(INDEX_NAME + "*"):
        p.unlink()
    with MatchStore(match_dir) as store:
        rec, log = store.new_match(RULES, NAMES)
        log.close()
        assert rec.number == 4 and store.current().number == 4


def test_the_readable_part_of_a_damaged_log_is_salvaged_into_a_new_current_match(tmp_path):
    from app.matchfiles import MatchStore, salvage

    match_dir = tmp_path / "matches"
    with MatchStore(match_dir) as store:
        rec, log = store.new_match(RULES, ["Zoë", "Ben", "Cleo"])
        log.close()
    from table.log import EventLog
    from table.simulator import Simulator

    with EventLog(rec.path) as log:
        Simulator(RULES, seed=1, on_input=log.append).play_round()
    damage(rec.path, "bad-entry")  # entry 5 unreadable
    lines = []
    new = salvage(rec.path, out=lines.append)
    assert new.number == 2 and "4 of" in lines[0] and str(rec.path) in lines[0]
    log, names, store = open_match(match_dir)
    try:
        assert log.path == new.path and len(log) == 4 and names == ["Zoë", "Ben", "Cleo"]
    finally:
        close(log, store)
    assert rec.path.exists()  # the damaged file is kept


def test_salvage_from_the_command_line(tmp_path):
    from app.matchfiles import MatchStore

    match_dir = tmp_path / "matches"
    with MatchStore(match_dir) as store:
        rec, log = store.new_match(RULES, NAMES)
        log.close()
    make_log(rec.path.with_name("x.db"))
    rec.path.unlink()
    rec.path.with_name("x.db").rename(rec.path)
    damage(rec.path, "bad-entry")
    out = cli("salvage", str(rec.path))
    assert out.returncode == 0, out.stderr
    assert "Salvaged 4 of" in out.stdout and "match 2" in out.stdout


def test_a_data_dir_from_before_the_index_resumes_its_newest_match(tmp_path):
    """Old data dirs: match-<date>.db files with names in .players.txt beside them."""
    from table.log import EventLog

    match_dir = tmp_path / "matches"
    match_dir.mkdir()
    for stamp, names in (("20250101-100000", "Ana\nBen\nCleo\n"), ("20240101-100000", "Dee\nEve\nFay\n")):
        with EventLog(match_dir / f"match-{stamp}.db", RULES):
            pass
        (match_dir / f"match-{stamp}.players.txt").write_text(names)
    time.sleep(0.01)
    # the second file was created last, although its name sorts first (a clock set back)
    log, names, store = open_match(match_dir)
    try:
        assert log.path.name == "match-20240101-100000.db" and names == ["Dee", "Eve", "Fay"]
    finally:
        close(log, store)
