"""Instant replay: the ring buffer, the clips on disk (pruned by age and size, never the round
in play), a full disk (clips stop, the game goes on, the host is told), and the dashboard's
replay API (a pruned clip says so)."""

from __future__ import annotations

import json
from collections import namedtuple
from types import SimpleNamespace

import cv2
import numpy as np
import pytest
from pydantic import ValidationError

from app.hub import TableHub
from table.log import EventLog, MemoryLog
from table.rules import preset
from vision.config import ReplayConfig
from vision.replay import MB, RETRY_S, FrameRing, KeptFrame, ReplayRecorder
from web_ui.app import create_app

NAMES = ["Ana", "Ben", "Cleo", "Dev"]
Usage = namedtuple("Usage", "total used free")
PIN = "4321"


def image(n: int, w: int = 1280, h: int = 720) -> np.ndarray:
    """A camera frame with its number written on it and a card-like block."""
    img = np.full((h, w, 3), (40, 90, 40), np.uint8)
    cv2.rectangle(img, (560, 260), (660, 420), (40, 40, 220), -1)
    cv2.putText(img, f"frame {n}", (40, 80), cv2.FONT_HERSHEY_SIMPLEX, 2.0, (255, 255, 255), 3)
    return img


def det(card="red-7", conf=0.9):
    return SimpleNamespace(card=card, confidence=conf, box=(560.0, 260.0, 660.0, 420.0), quad=None)


def observation(frame: int, card="red-7", fps=10.0) -> dict:
    return {"type": "discard", "frame": frame, "timestamp": frame / fps, "confidence": 0.5,
            "cards": [{"card": card, "confidence": 0.5, "box": [560, 260, 660, 420], "center": [610, 340],
                       "candidates": [[card, 0.5], ["red-1", 0.45]]}]}


class Clock:
    def __init__(self, t=1_000_000.0):
        self.t = t

    def __call__(self):
        return self.t


def recorder(tmp_path, **cfg) -> ReplayRecorder:
    config = ReplayConfig().model_copy(update=cfg)
    rec = ReplayRecorder(config, sync=True, clock=cfg.pop("clock", Clock()),
                         disk_usage=lambda _p: Usage(10**12, 0, 10**12))
    rec.set_match(tmp_path / "match-1.db")
    return rec


def film(rec, first: int, last: int, observe: dict[int, dict] | None = None, fps=10.0):
    """Frames first..last at `fps`; at frame n an observation when `observe` has one."""
    observe = observe or {}
    for n in range(first, last + 1):
        obs = [observe[n]] if n in observe else []
        rec.add_frame(n, n / fps, image(n), [det()], obs)


# ----------------------------------------------------------------------------- memory


def test_the_ring_keeps_the_newest_frames_within_its_seconds_and_bytes():
    ring = FrameRing(seconds=2.0, max_bytes=10_000)
    for n in range(100):
        ring.add(KeptFrame(n, n * 0.1, b"x" * 100))
    assert ring.span_s <= 2.0 + 1e-9 and len(ring) == 21
    ring = FrameRing(seconds=60.0, max_bytes=2_000)
    for n in range(100):
        ring.add(KeptFrame(n, n * 0.1, b"x" * 400))
    assert ring.nbytes <= 2_000 and len(ring) == 4


def test_the_recorder_thins_a_fast_camera_to_its_fps_but_keeps_the_observed_frame(tmp_path):
    rec = recorder(tmp_path, fps=5.0)
    film(rec, 1, 30, {7: observation(7)}, fps=20.0)  # 1.5 s at 20 fps
    kept = [f.number for f in rec.ring.between(0, 99)]
    assert 7 in kept and len(kept) <= 1.5 * 5 + 2
    f = rec.ring.between(0, 99)[0]
    assert f.size == (480, 270) and f.jpeg[:2] == b"\xff\xd8"
    assert f.boxes[0][0] == "red-7" and len(f.boxes[0][2]) == 8  # corners in the small frame's pixels


def test_replay_config_is_validated_with_bounds():
    with pytest.raises(ValidationError, match="must fit in ring_seconds"):
        ReplayConfig(before_s=15, after_s=10, ring_seconds=20)
    with pytest.raises(ValidationError):
        ReplayConfig(width=10)
    with pytest.raises(ValidationError):
        ReplayConfig(unknown=1)


# ----------------------------------------------------------------------------- clips


def test_a_camera_entry_keeps_the_clip_around_its_moment_and_the_crop_of_its_card(tmp_path):
    rec = recorder(tmp_path)
    film(rec, 1, 50, {50: observation(50)})  # 5 s of frames, the card decided at 5.0 s
    rec.keep(12, observation(50))
    assert rec.clip(12)["state"] == "recording"  # 2 s after the moment still to come
    film(rec, 51, 75)
    clip = rec.clip(12)
    assert clip["state"] == "ok"
    ts = [f["t"] for f in clip["frames"]]
    assert ts[-1] - ts[0] == pytest.approx(6.0, abs=0.25)  # 4 s before, 2 s after
    assert clip["frames"][clip["at"]]["n"] == 50
    assert clip["cards"][0]["card"] == "red-7" and clip["cards"][0]["crop"] is True
    assert clip["cards"][0]["candidates"] == [["red-7", 0.5], ["red-1", 0.45]]
    assert rec.frame(12, 0)[:2] == b"\xff\xd8" and rec.crop(12, 0)[:2] == b"\xff\xd8"
    crop = cv2.imdecode(np.frombuffer(rec.crop(12, 0), np.uint8), cv2.IMREAD_COLOR)
    assert crop.shape[0] == 160 and crop[80, crop.shape[1] // 2, 2] > 180  # the red card, full size
    d = tmp_path / "match-1.replay"
    assert (d / "clips" / "000012.json").exists() and len(list((d / "frames").glob("*.jpg"))) == len(ts)


def test_overlapping_clips_share_their_frames_on_disk(tmp_path):
    rec = recorder(tmp_path)
    film(rec, 1, 40, {30: observation(30), 40: observation(40)})
    rec.keep(5, observation(30))
    rec.keep(6, observation(40))
    film(rec, 41, 70)
    a, b = rec.clip(5)["frames"], rec.clip(6)["frames"]
    files = list((tmp_path / "match-1.replay" / "frames").glob("*.jpg"))
    assert len(files) < len(a) + len(b)


def test_clips_are_pruned_oldest_first_by_size_never_the_round_in_play_and_a_pruned_one_says_so(tmp_path):
    clock = Clock()
    rec = recorder(tmp_path, clock=clock, keep_mb=0.05, before_s=1.0, after_s=0.5)
    rec.protect_from(1)  # round 1 starts at entry 1
    for i in range(1, 4):
        n = i * 20
        film(rec, n - 19, n, {n: observation(n)})
        rec.keep(i, observation(n))
        clock.t += 60
    rec.protect_from(4)  # round 2: the first three clips may go now
    for i in range(4, 8):
        n = i * 20
        film(rec, n - 19, n, {n: observation(n)})
        rec.keep(i, observation(n))
        clock.t += 60
    film(rec, 141, 160)
    rec.flush()
    states = {i: rec.clip(i)["state"] for i in range(1, 8)}
    assert states[1] == "pruned" and states[7] == "ok"
    assert all(states[i] == "ok" for i in range(4, 8))  # the round in play is kept whatever its size
    assert "over the disk kept for clips" in rec.clip(1)["message"]
    assert rec.frame(1, 0) is None and rec.crop(1, 0) is None
    assert all(states[i] == "pruned" for i in (1, 2, 3))


def test_clips_older_than_the_kept_hours_are_pruned(tmp_path):
    clock = Clock()
    rec = recorder(tmp_path, clock=clock, keep_hours=1.0)
    film(rec, 1, 60, {40: observation(40)})
    rec.keep(3, observation(40))
    clock.t += 2 * 3600
    film(rec, 61, 100, {80: observation(80)})
    rec.keep(4, observation(80))
    rec.flush()
    assert rec.clip(3)["state"] == "pruned" and "older than the kept hours" in rec.clip(3)["message"]
    assert rec.clip(4)["state"] == "ok"


def test_a_restarted_table_finds_its_clips_and_prunes_them_too(tmp_path):
    rec = recorder(tmp_path)
    film(rec, 1, 60, {40: observation(40)})
    rec.keep(3, observation(40))
    rec.flush()
    again = recorder(tmp_path)
    assert again.clip(3)["state"] == "ok" and again.status()["clips"] == 1 and again.status()["disk_mb"] > 0


def test_a_nearly_full_disk_stops_the_clips_tells_the_host_and_they_resume_when_space_returns(tmp_path):
    clock = Clock()
    free = [10**12]
    told = []
    rec = ReplayRecorder(ReplayConfig(), sync=True, clock=clock, on_problem=told.append,
                         disk_usage=lambda _p: Usage(10**12, 0, free[0]))
    rec.set_match(tmp_path / "match-1.db")
    free[0] = 100 * MB  # under the 256 MB kept for the game log
    film(rec, 1, 60, {40: observation(40)})
    rec.keep(3, observation(40))
    rec.flush()
    assert rec.clip(3)["state"] == "none" and "clips stopped: only 100 MB free" in rec.clip(3)["message"]
    assert told == [rec.status()["message"]] and rec.status()["status"] == "stopped"
    free[0] = 10**12
    clock.t += RETRY_S + 1
    film(rec, 61, 100, {80: observation(80)})
    rec.keep(4, observation(80))
    rec.flush()
    assert rec.clip(4)["state"] == "ok" and told[-1] is None and rec.status()["status"] == "recording"


def test_a_write_error_stops_the_clips_without_raising(tmp_path):
    rec = ReplayRecorder(ReplayConfig(), sync=True, disk_usage=lambda _p: Usage(10**12, 0, 10**12))
    blocker = tmp_path / "match-1.replay"
    blocker.write_text("not a folder")  # every write under it fails
    rec.set_match(tmp_path / "match-1.db")
    film(rec, 1, 60, {40: observation(40)})
    rec.keep(3, observation(40))
    rec.flush()
    assert rec.status()["status"] == "stopped" and "cannot write" in rec.status()["message"]


def test_the_writer_thread_writes_clips_off_the_frame_loop(tmp_path):
    rec = ReplayRecorder(ReplayConfig(), disk_usage=lambda _p: Usage(10**12, 0, 10**12))
    rec.set_match(tmp_path / "match-1.db")
    film(rec, 1, 70, {40: observation(40)})
    rec.keep(3, observation(40))
    film(rec, 71, 72)
    rec.close()
    assert rec.clip(3)["state"] == "ok"


def test_a_pipeline_result_feeds_the_recorder(tmp_path):
    from vision.observations import CardsPlayed, LikelyDraw, ObservedCard, PileCovered

    rec = recorder(tmp_path)
    card = ObservedCard("red-7", 0.9, (560.0, 260.0, 660.0, 420.0), (610.0, 340.0))
    frame = SimpleNamespace(number=9, timestamp=0.9, image=image(9))
    observations = [PileCovered(False, 9, 0.9, 1.0), CardsPlayed((card,), 9, 0.9, 0.9), LikelyDraw(9, 0.9, 0.7)]
    rec.on_result(SimpleNamespace(frame=frame, detections=[det()], observations=observations))
    assert rec._crops[9][0][:2] == b"\xff\xd8" and len(rec.ring) == 1


# ----------------------------------------------------------------------------- the hub and the dashboard


def camera_play(hub, frame, card="red-7", conf=0.5):
    obs = observation(frame, card)
    obs["cards"][0]["confidence"] = conf
    hub.submit({"kind": "observation", "observation": obs}, source="camera")
    return obs


@pytest.fixture
def table(tmp_path):
    rec = recorder(tmp_path)
    log = EventLog(tmp_path / "match-1.db", preset("official"))
    hub = TableHub(log, NAMES, replay=rec)
    hub.submit({"kind": "start_round", "dealer": 0})
    hub.submit({"kind": "flip", "card": "red-5"}, source="host")
    film(rec, 1, 30, {30: observation(30)})
    camera_play(hub, 30)
    film(rec, 31, 60)
    app = create_app(hub, host_pin=PIN, seat_tokens={s: f"tok-{s}-xxxxxxxx" for s in range(4)})
    yield hub, rec, app.test_client()
    hub.close()


def test_the_hub_hands_each_camera_entry_to_the_recorder(table):
    hub, rec, _ = table
    entry = len(hub.log)
    clip = hub.replay_clip(entry)
    assert clip["state"] == "ok" and clip["kind"] == "play" and "Ben plays red 7" in clip["text"]
    assert hub.replay_clip(2)["state"] == "none" and "not seen by the camera" in hub.replay_clip(2)["message"]
    assert rec._protect is not None and rec._protect[1] == 1  # the round that started at entry 1


def test_the_replay_api_serves_the_clip_its_frames_and_crops(table):
    hub, _, client = table
    entry = len(hub.log)
    r = client.get(f"/api/replay/{entry}")
    assert r.status_code == 200 and r.json["state"] == "ok" and len(r.json["frames"]) > 10
    f = client.get(f"/api/replay/{entry}/frame/0.jpg")
    assert f.status_code == 200 and f.mimetype == "image/jpeg" and f.data[:2] == b"\xff\xd8"
    c = client.get(f"/api/replay/{entry}/crop/0.jpg")
    assert c.status_code == 200 and c.data[:2] == b"\xff\xd8"
    assert client.get(f"/api/replay/{entry}/frame/999.jpg").status_code == 404


def test_the_replay_api_says_why_there_is_no_clip(table):
    hub, rec, client = table
    r = client.get("/api/replay/2")
    assert r.status_code == 404 and "not seen by the camera" in r.json["error"] and r.json["status"] == 404
    assert client.get("/api/replay/999").status_code == 404
    entry = len(hub.log)
    meta_path = rec.store.clip_path(rec.match, entry)
    rec.store._prune(rec.store._clips[(rec.match, entry)], "over the disk kept for clips")
    r = client.get(f"/api/replay/{entry}")
    assert r.status_code == 410 and r.json["state"] == "pruned" and "was pruned" in r.json["error"]
    assert json.loads(meta_path.read_text())["frames"] == []
    assert client.get(f"/api/replay/{entry}/frame/0.jpg").status_code == 404


def test_questions_are_for_the_host_and_an_answer_needs_the_host(table):
    hub, _, client = table
    assert client.get("/api/questions").status_code == 401
    entry = len(hub.log)
    r = client.post("/api/host/command", json={"kind": "answer", "entry": entry, "card": "red-1"})
    assert r.status_code == 401  # no host session
    r = client.post("/api/seat/1/action", json={"action": "uno"}, headers={"X-Seat-Token": "tok-1-xxxxxxxx"})
    assert r.status_code == 200
    login = client.post("/api/login", json={"pin": PIN})
    csrf = login.json["csrf"]
    (q,) = client.get("/api/questions").json["questions"]
    assert q["entry"] == entry and [o["card"] for o in q["options"]] == ["red-7", "red-1"]
    ok = client.post("/api/host/command", json={"kind": "answer", "entry": entry, "card": "red-1"},
                     headers={"X-CSRF-Token": csrf})
    assert ok.status_code == 200 and hub.snapshot()["top_card"] == "red-1"
    again = client.post("/api/host/command", json={"kind": "answer", "entry": entry, "card": "red-7"},
                        headers={"X-CSRF-Token": csrf})
    assert again.status_code == 400 and "answered already" in again.json["error"]
    assert client.get("/api/questions").json["questions"] == []
    assert client.get("/api/questions?all=1").json["questions"][0]["status"] == "answered"


def test_a_mark_from_the_replay_is_kept_with_the_clip(table):
    hub, rec, client = table
    entry = len(hub.log)
    csrf = client.post("/api/login", json={"pin": PIN}).json["csrf"]
    r = client.post("/api/host/command", json={"kind": "mark", "entry": entry, "text": "Ana hid a card", "frame": 4},
                    headers={"X-CSRF-Token": csrf})
    assert r.status_code == 200
    (m,) = client.get(f"/api/replay/{entry}").json["marks"]
    assert m["text"] == "Ana hid a card" and m["frame"] == 4


def test_a_full_disk_leaves_the_game_and_its_log_going(tmp_path):
    told = []
    rec = ReplayRecorder(ReplayConfig(), sync=True, on_problem=told.append,
                         disk_usage=lambda _p: Usage(10**12, 0, 1 * MB))
    hub = TableHub(MemoryLog(preset("official")), NAMES, replay=rec)
    rec.on_problem = lambda m: hub.feed.publish("replay", {"status": "stopped" if m else "recording", "text": m})
    rec.set_match(tmp_path / "m.db")
    hub.submit({"kind": "start_round", "dealer": 0})
    hub.submit({"kind": "flip", "card": "red-5"}, source="host")
    film(rec, 1, 30, {30: observation(30)})
    camera_play(hub, 30, conf=0.95)
    film(rec, 31, 60)
    camera_play(hub, 60, card="red-9", conf=0.95)
    film(rec, 61, 90)
    assert hub.snapshot()["top_card"] == "red-9" and len(hub.log) == 4  # the game went on
    assert hub.snapshot()["replay"]["status"] == "stopped"
    msgs = [m for m in hub.feed.all() if m["type"] == "replay"]
    assert len(msgs) == 1 and "only 1 MB free" in msgs[0]["payload"]["text"]
    assert "clips stopped" in hub.replay_clip(3)["message"]


def test_the_simulated_table_read_by_the_pipeline_keeps_a_clip_of_the_card_it_read(tmp_path):
    from vision.config import SimSourceConfig, SimTruthDetectorConfig, VisionConfig
    from vision.live import SimulatedCamera

    cfg = VisionConfig(source=SimSourceConfig(), detector=SimTruthDetectorConfig(seed=1, flicker_rate=0.0))
    camera = SimulatedCamera(cfg, seed=1)
    rec = recorder(tmp_path)
    camera.pipeline.listeners.append(rec.on_result)
    camera.act("play", ("red-7",))
    played = []
    for _ in range(90):
        for obs in camera.step():
            if obs["type"] == "discard":
                played.append(obs)
                rec.keep(len(played), obs)
    rec.flush()
    assert [c["card"] for c in played[0]["cards"]] == ["red-7"]
    assert played[0]["cards"][0]["candidates"][0][0] == "red-7"  # the guesses travel with the card
    clip = rec.clip(1)
    assert clip["state"] == "ok" and clip["cards"][0]["card"] == "red-7" and rec.crop(1, 0)[:2] == b"\xff\xd8"
    assert any(b[0] == "red-7" for f in clip["frames"] for b in f["boxes"])
    assert clip["frames"][clip["at"]]["n"] == played[0]["frame"]


def test_run_and_demo_attach_replay_beside_the_match_and_tell_the_host_when_clips_stop(tmp_path):
    from app.commands import _attach_replay
    from vision.config import SimTruthDetectorConfig, VisionConfig
    from vision.pipeline import VisionPipeline

    cfg = VisionConfig(detector=SimTruthDetectorConfig())
    hub = TableHub(EventLog(tmp_path / "match-9.db", preset("official")), NAMES, match_dir=tmp_path)
    pipeline = VisionPipeline(cfg)
    rec = _attach_replay(hub, cfg, pipeline)
    try:
        assert hub.replay is rec and rec.on_result in pipeline.listeners
        assert rec.match == tmp_path / "match-9.replay"
        rec.on_problem("clips stopped: only 3 MB free on the data disk")
        (msg,) = [m for m in hub.feed.all() if m["type"] == "replay"]
        assert msg["payload"] == {"status": "stopped", "text": "clips stopped: only 3 MB free on the data disk"}
        hub.submit({"kind": "new-match"}, source="host")  # a new log: its clips go beside it
        assert rec.match == ClipStoreDir(hub.log.path) and rec.match != tmp_path / "match-9.replay"
    finally:
        rec.close()
        hub.close()
    off = cfg.model_copy(update={"replay": ReplayConfig(enabled=False)})
    assert _attach_replay(TableHub(MemoryLog(preset("official")), NAMES), off, VisionPipeline(off)) is None


def ClipStoreDir(db):  # noqa: N802 - reads as the path it returns
    from vision.replay import ClipStore

    return ClipStore.dir_for(db)
