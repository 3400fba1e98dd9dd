"""The app hub: one writer, logged before applied, seat controllers limited to their seat,
host commands, and a restart that loses nothing."""

import threading

import pytest

from app.hub import CommandError, TableHub, latest_unfinished, read_names, write_names
from table.inputs import InputError
from table.log import EventLog, MemoryLog
from table.rules import preset


def started(hub: TableHub) -> TableHub:
    hub.submit({"kind": "start_round", "dealer": 0})
    hub.submit({"kind": "flip", "card": "red-5"})
    return hub


def test_inputs_from_many_threads_are_applied_one_at_a_time_in_arrival_order():
    hub = started(TableHub(MemoryLog(preset("official")))).start()
    try:
        results = []

        def call(seat):
            results.append(hub.submit({"kind": "call_uno", "seat": seat}, source="host"))

        threads = [threading.Thread(target=call, args=(s,)) for s in range(4) for _ in range(5)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(results) == 20
        # every input was logged exactly once, in the order the writer applied it
        assert len(hub.log) == 2 + 20
        seqs = [m["seq"] for m in hub.feed.all()]
        assert seqs == list(range(1, len(seqs) + 1))
    finally:
        hub.stop()


def test_a_bad_input_is_refused_with_its_reason_and_nothing_is_logged():
    hub = started(TableHub(MemoryLog(preset("official"))))
    before = (len(hub.log), hub.snapshot())
    with pytest.raises(InputError, match="unknown card 'red-77'"):
        hub.submit({"kind": "play", "cards": ["red-77"]})
    with pytest.raises(InputError, match="unknown input kind"):
        hub.submit({"kind": "teleport"})
    assert (len(hub.log), hub.snapshot()) == before


def test_an_illegal_play_is_an_event_with_a_readable_reason_not_an_error():
    hub = started(TableHub(MemoryLog(preset("official"))))
    out = hub.submit({"kind": "play", "cards": ["blue-7"]})
    kinds = [e["kind"] for e in out["events"]]
    assert "illegal_play" in kinds
    verdict = hub.snapshot()["verdicts"][-1]
    assert verdict["ok"] is False and "blue 7 does not match red 5" in verdict["text"]


def test_a_seat_controller_acts_only_for_its_own_seat():
    hub = started(TableHub(MemoryLog(preset("official"))))
    with pytest.raises(CommandError, match="cannot act for seat 2"):
        hub.submit({"kind": "call_uno", "seat": 2}, source="seat:1")
    with pytest.raises(CommandError, match="may not send 'play'"):
        hub.submit({"kind": "play", "cards": ["red-7"]}, source="seat:1")
    with pytest.raises(CommandError, match="host command"):
        hub.submit({"kind": "new-match"}, source="seat:1")
    out = hub.submit({"kind": "call_uno", "seat": 1}, source="seat:1")
    assert out["ok"]


def test_pause_stops_table_inputs_until_resume_but_not_the_host():
    hub = started(TableHub(MemoryLog(preset("official"))))
    hub.submit({"kind": "pause"})
    assert hub.snapshot()["status"] == "paused"
    with pytest.raises(CommandError, match="paused"):
        hub.submit({"kind": "play", "cards": ["red-7"]}, source="camera")
    hub.submit({"kind": "resume"})
    assert hub.submit({"kind": "play", "cards": ["red-7"]}, source="camera")["ok"]


def test_observations_are_mapped_by_the_state_of_the_game():
    hub = TableHub(MemoryLog(preset("official")))
    hub.submit({"kind": "start_round", "dealer": 0})
    obs = {"type": "discard", "frame": 10, "confidence": 0.9, "cards": [{"card": "green-3"}]}
    hub.submit({"kind": "observation", "observation": obs}, source="camera")
    assert hub.snapshot()["top_card"] == "green-3"  # taken as the starter card
    obs = {"type": "discard", "frame": 20, "confidence": 0.9, "cards": [{"card": "green-8"}]}
    hub.submit({"kind": "observation", "observation": obs}, source="camera")
    snap = hub.snapshot()
    assert snap["top_card"] == "green-8" and snap["seats"][1]["hand_count"] == 6
    entry = hub.log_entries()[-1]
    assert entry["kind"] == "play" and entry["inferred"] and entry["source"] == "camera"


def test_restart_rebuilds_state_feed_and_names_from_the_sqlite_log(tmp_path):
    db = tmp_path / "match-1.db"
    hub = started(TableHub(EventLog(db, preset("official")), ["Ana", "Ben", "Cleo", "Dev"]))
    write_names(db, hub.names)
    hub.submit({"kind": "play", "cards": ["red-7"]})
    hub.submit({"kind": "gesture", "seat": 2, "gesture": "hold", "at": 3.0})
    snap, feed = hub.snapshot(), hub.feed.all()
    hub.close()

    again = TableHub(EventLog(db), read_names(db))
    assert again.snapshot() == snap
    assert [(m["seq"], m["type"]) for m in again.feed.all()] == [(m["seq"], m["type"]) for m in feed]
    assert again.names == ["Ana", "Ben", "Cleo", "Dev"]
    assert latest_unfinished(tmp_path) == db
    again.close()


def test_a_client_from_before_a_new_match_is_resynced_with_a_snapshot():
    hub = started(TableHub(MemoryLog(preset("official"))))
    last = hub.feed.last_seq
    hub.submit({"kind": "new-match", "preset": "two-player", "players": ["A", "B"]})
    assert hub.snapshot()["status"] == "setup" and len(hub.names) == 2
    stale = hub.wait_events(last + 100, 0.01)
    assert stale[0]["type"] == "snapshot"


def test_new_match_refuses_bad_rules_and_keeps_the_old_match():
    hub = started(TableHub(MemoryLog(preset("official"))))
    with pytest.raises(ValueError, match="preset"):
        hub.submit({"kind": "setup", "preset": "no-such-preset"})
    assert hub.snapshot()["top_card"] == "red-5"


def test_a_lost_camera_pauses_the_table_with_its_message_and_its_return_resumes():
    hub = started(TableHub(MemoryLog(preset("official"))))
    hub.set_camera_status("waiting for camera", "/dev/video0 is gone; retrying in 2.0 s")
    snap = hub.snapshot()
    assert snap["status"] == "paused" and "video0" in snap["camera"]["message"]
    msg = hub.feed.all()[-1]
    assert msg["type"] == "camera" and "retrying" in msg["payload"]["text"]
    hub.set_camera_status("running")
    assert hub.snapshot()["status"] == "playing"


def test_a_read_only_database_refuses_the_input_loudly_and_applies_nothing(tmp_path):
    import sqlite3

    from table.errors import LogError

    db = tmp_path / "match.db"
    hub = started(TableHub(EventLog(db, preset("official"))))
    before = (len(hub.log), hub.snapshot())
    hub.log._db.close()
    hub.log._db = sqlite3.connect(f"file:{db}?mode=ro", uri=True, isolation_level=None, check_same_thread=False)
    with pytest.raises(LogError, match="cannot append"):
        hub.submit({"kind": "play", "cards": ["red-7"]})
    assert hub.snapshot() == before[1]
    assert len(EventLog(db)) == before[0]


def _seen(*cards):
    obs = {"type": "discard", "frame": 1, "confidence": 0.9, "cards": [{"card": c} for c in cards]}
    return {"kind": "observation", "observation": obs}


@pytest.mark.rule("H5")
def test_a_jump_in_is_the_seat_whose_button_holds_after_the_card_lands():
    hub = started(TableHub(MemoryLog(preset("party")))).start()  # seat 1's turn
    try:
        hub.submit(_seen("red-3"), source="camera")  # seat 1 plays red 3
        hs = hub.state.rules.hand_size
        hub.submit(_seen("red-3"), source="camera")  # its twin: read as seat 2's turn play
        assert hub.state.hands[2] == hs - 1
        hub.submit({"kind": "gesture", "seat": 3, "gesture": "hold", "at": 1.0}, source="button")
        # Seat 3 claimed it: the entry is amended (logged), the state rebuilt.
        assert hub.state.hands[2] == hs and hub.state.hands[3] == hs - 1 and hub.state.turn == 0
        assert hub.log.inputs()[-1].kind == "amend"
    finally:
        hub.stop()


@pytest.mark.rule("H5")
def test_a_hold_before_the_card_claims_the_next_card_and_a_plain_play_is_never_claimed():
    hub = started(TableHub(MemoryLog(preset("party")))).start()
    try:
        hub.submit(_seen("red-3"), source="camera")  # seat 1, not a twin of red 5: no jump-in
        n = len(hub.log)
        out = hub.submit({"kind": "gesture", "seat": 3, "gesture": "hold", "at": 1.0}, source="button")
        assert "claims the next card" in out["ignored"] and len(hub.log) == n  # nothing amended
        hub.submit(_seen("red-3"), source="camera")
        hs = hub.state.rules.hand_size
        assert hub.log.inputs()[-1].seat == 3 and hub.state.hands[3] == hs - 1 and hub.state.hands[2] == hs
        off = started(TableHub(MemoryLog(preset("official")))).start()
        try:  # without jump-in a hold out of turn is refused by the referee, as before
            r = off.submit({"kind": "gesture", "seat": 3, "gesture": "hold", "at": 1.0}, source="button")
            assert r["events"][0]["kind"] == "input_rejected"
        finally:
            off.stop()
    finally:
        hub.stop()
