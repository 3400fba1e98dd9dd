"""The SQLite event log: WAL, one transaction per input, append-only, replay, bad files."""

import sqlite3
import subprocess
import sys
import textwrap

import pytest

from app.session import Session
from table.errors import LogError
from table.inputs import Flip, InputError, Play, StartRound
from table.log import EventLog
from table.referee import replay
from table.rules import preset
from table.simulator import SimOptions, Simulator


def test_new_log_is_wal_with_full_sync_and_stores_the_rules(tmp_path):
    path = tmp_path / "game.db"
    log = EventLog(path, preset("two-player"))
    assert log._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert log._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    log.close()
    again = EventLog(path)
    assert again.rules.players == 2 and len(again) == 0
    again.close()


def test_inputs_are_logged_before_they_are_applied_and_survive_reopen(tmp_path):
    path = tmp_path / "game.db"
    s = Session(log=EventLog(path, preset("official")))
    seen = []

    def listener(events, snap):
        # by the time anyone hears of the input, it is already committed in the file
        other = sqlite3.connect(path)
        seen.append(other.execute("SELECT COUNT(*) FROM inputs").fetchone()[0])
        other.close()

    s.subscribe(listener)
    s.submit({"kind": "start_round", "dealer": 0})
    s.submit({"kind": "flip", "card": "blue-5"})
    s.submit({"kind": "play", "cards": ["red-7"]})
    assert seen == [1, 2, 3]
    snap = s.snapshot()
    s.close()
    reopened = Session(log=EventLog(path))
    assert reopened.snapshot() == snap and reopened.snapshot()["hand_counts"][1] == 9


def test_bad_input_is_refused_and_nothing_is_logged(tmp_path):
    path = tmp_path / "game.db"
    s = Session(log=EventLog(path, preset("official")))
    s.submit(StartRound(dealer=0))
    before = s.snapshot()
    with pytest.raises(InputError):
        s.submit({"kind": "play", "cards": ["red-11"]})
    with pytest.raises(InputError):
        s.submit({"kind": "catch", "seat": 9})
    assert len(s.log) == 1 and s.snapshot() == before


def test_log_is_append_only(tmp_path):
    path = tmp_path / "game.db"
    log = EventLog(path, preset("official"))
    log.append(StartRound(dealer=0))
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        log._db.execute("UPDATE inputs SET body = '{}'")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        log._db.execute("DELETE FROM inputs")
    assert len(log.inputs()) == 1
    log.close()


def test_foreign_and_broken_files_give_errors_naming_the_file(tmp_path):
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(LogError, match="junk.db") as info:
        EventLog(junk)
    assert "not a readable UNO Table log" in str(info.value)
    foreign = tmp_path / "foreign.db"
    db = sqlite3.connect(foreign)
    db.execute("CREATE TABLE people (name TEXT)")
    db.commit()
    db.close()
    with pytest.raises(LogError, match="foreign.db.*not an UNO Table log"):
        EventLog(foreign)
    with pytest.raises(LogError, match="no such log file"):
        EventLog(tmp_path / "missing.db", create=False)


def test_damaged_entry_is_reported_with_its_number_and_earlier_entries_are_kept(tmp_path):
    path = tmp_path / "game.db"
    log = EventLog(path, preset("official"))
    log.append(StartRound(dealer=0))
    log.append(Flip(card="blue-5"))
    log._db.execute("INSERT INTO inputs(kind, body, logged_at) VALUES ('play', '{\"kind\": \"play\", \"cards\": [\"red-99\"]}', 0)")
    log.close()
    with pytest.raises(LogError, match=r"game.db: entry 3 is damaged.*red-99"):
        EventLog(path).inputs()
    raw = sqlite3.connect(path).execute("SELECT COUNT(*) FROM inputs").fetchone()[0]
    assert raw == 3


def test_different_rules_for_an_existing_log_are_refused(tmp_path):
    path = tmp_path / "game.db"
    EventLog(path, preset("official")).close()
    with pytest.raises(LogError, match="differ"):
        EventLog(path, preset("two-player"))


def test_replay_from_sqlite_equals_the_live_state(tmp_path):
    path = tmp_path / "game.db"
    log = EventLog(path, preset("official"))
    opts = SimOptions(forget_uno=0.3, challenge_rate=0.5, bluff_rate=0.3, voluntary_draw=0.1)
    sim = Simulator(preset("official"), seed=11, options=opts, on_input=log.append)
    sim.play_round()
    log.close()
    inputs = EventLog(path).inputs()
    assert inputs == sim.state.inputs()
    assert replay(preset("official"), inputs) == sim.state


def test_power_cut_loses_nothing_that_was_committed(tmp_path):
    """A writer killed with SIGKILL mid-game: every input it reported as logged is there."""
    path = tmp_path / "cut.db"
    code = textwrap.dedent(f"""
        import os, signal, sys
        from table.log import EventLog
        from table.inputs import StartRound, Flip, Play
        from table.rules import preset
        log = EventLog({str(path)!r}, preset("official"))
        log.append(StartRound(dealer=0))
        log.append(Flip(card="blue-5"))
        for i in range(50):
            log.append(Play(cards=("blue-7",)))
            print(i, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == -9
    reported = len(out.stdout.split())
    log = EventLog(path)
    assert len(log) == 2 + reported == 52
    assert log.inputs()[-1] == Play(cards=("blue-7",))


def test_entry_that_cannot_apply_to_this_table_is_reported_not_a_crash(tmp_path):
    path = tmp_path / "game.db"
    log = EventLog(path, preset("two-player"))
    log.append(StartRound(dealer=0))
    log._db.execute("INSERT INTO inputs(kind, body, logged_at) VALUES ('catch', '{\"kind\": \"catch\", \"seat\": 5}', 0)")
    log.close()
    with pytest.raises(LogError, match=r"entry 2 cannot be replayed.*seat=5"):
        Session(log=EventLog(path))


def test_entries_for_the_dashboard(tmp_path):
    log = EventLog(tmp_path / "game.db", preset("official"))
    log.append(StartRound(dealer=0))
    log.append(Play(cards=("red-7",), seat=1))
    entries = log.entries()
    assert [e["seq"] for e in entries] == [1, 2]
    assert entries[1]["kind"] == "play" and entries[1]["input"] == {"kind": "play", "cards": ["red-7"], "seat": 1}
    assert log.entries(after=1)[0]["seq"] == 2
