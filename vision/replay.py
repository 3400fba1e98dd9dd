"""Instant replay: what the table saw behind every camera entry of the log.

- `FrameRing`: the recent frames in memory, each a small JPEG (`ReplayConfig.width`) with the
  cards found in it (name, confidence, corners), bounded by seconds and by bytes.
- `ClipStore`: the clips on disk, next to the match (`match-X.db` -> `match-X.replay/`):
  `frames/` (one JPEG per kept frame, shared by the clips that overlap), `crops/` (each card
  read, cut from the full-resolution frame) and `clips/<entry>.json` (which frames, where the
  cards were, what was read, the host's marks). Pruned by age and total size, oldest first,
  never the round in play; a pruned clip leaves its JSON saying so. A disk nearly full stops
  the clips (the game and its log go on) and says why.
- `ReplayRecorder`: both, fed by the vision pipeline (`on_result`, a pipeline listener) and
  told by the app which log entry an observation became (`keep`). The frame loop only hands
  over a reference to each frame it keeps (`fps` a second, and every frame an observation
  was decided on): an encoder thread shrinks and encodes it and cuts the crops, a writer
  thread writes a clip once `after_s` seconds after its moment have been seen. The frame
  loop never waits for either; a frame the encoder has no time for is dropped (counted).

Frame numbers restart with every run of the app, so kept frames are named by run and number.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import shutil
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.config import ReplayConfig

log = logging.getLogger("uno_table.vision.replay")

MB = 1024 * 1024
#: After clips stopped for a full disk, how often (seconds) the free space is looked at again.
RETRY_S = 30.0


@dataclass(frozen=True, slots=True)
class KeptFrame:
    """One frame of the ring: its number and time, a small JPEG, and the cards found in it as
    [card, confidence, [x0, y0, x1, y1, ...corners]] in the JPEG's pixels."""

    number: int
    timestamp: float
    jpeg: bytes
    boxes: tuple = ()
    size: tuple[int, int] = (0, 0)

    @property
    def nbytes(self) -> int:
        return len(self.jpeg) + 64 * len(self.boxes) + 96


class FrameRing:
    """Recent frames, oldest first, bounded by `seconds` of time and `max_bytes` of memory."""

    def __init__(self, seconds: float, max_bytes: int):
        self.seconds, self.max_bytes = seconds, max_bytes
        self._frames: deque[KeptFrame] = deque()
        self.nbytes = 0
        self._lock = threading.Lock()

    def add(self, frame: KeptFrame) -> None:
        with self._lock:
            self._frames.append(frame)
            self.nbytes += frame.nbytes
            while len(self._frames) > 1 and (
                self.nbytes > self.max_bytes or frame.timestamp - self._frames[0].timestamp > self.seconds
            ):
                self.nbytes -= self._frames.popleft().nbytes

    def between(self, t0: float, t1: float) -> list[KeptFrame]:
        with self._lock:
            return [f for f in self._frames if t0 <= f.timestamp <= t1]

    def __len__(self) -> int:
        return len(self._frames)

    @property
    def span_s(self) -> float:
        with self._lock:
            return self._frames[-1].timestamp - self._frames[0].timestamp if len(self._frames) > 1 else 0.0


def encode_jpeg(image: np.ndarray, quality: int) -> bytes:
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise ValueError("JPEG encoding failed")
    return buf.tobytes()


def _corners(det) -> list[float]:
    if getattr(det, "quad", None) is not None:
        return [v for pt in det.quad for v in pt]
    x0, y0, x1, y1 = det.box
    return [x0, y0, x1, y0, x1, y1, x0, y1]


def _cards(observation) -> list:
    """The cards of an observation (vision's dataclass or its JSON)."""
    if isinstance(observation, dict):
        return list(observation.get("cards") or [])
    return list(getattr(observation, "cards", None) or [])  # a covered pile or a draw has none


def _box(card):
    return card.box if hasattr(card, "box") else card["box"]


def crop_card(image: np.ndarray, box, height: int, quality: int = 85) -> bytes | None:
    """The card in `box` (frame pixels) with a little of its surroundings, `height` pixels
    tall, as JPEG; None when the box lies outside the image."""
    h, w = image.shape[:2]
    x0, y0, x1, y1 = (float(v) for v in box)
    m = 0.1 * max(x1 - x0, y1 - y0)
    x0, y0 = max(0, int(x0 - m)), max(0, int(y0 - m))
    x1, y1 = min(w, int(x1 + m + 1)), min(h, int(y1 + m + 1))
    if x1 - x0 < 4 or y1 - y0 < 4:
        return None
    crop = image[y0:y1, x0:x1]
    f = height / crop.shape[0]
    crop = cv2.resize(crop, (max(1, round(crop.shape[1] * f)), height),
                      interpolation=cv2.INTER_AREA if f < 1 else cv2.INTER_LINEAR)  # fmt: skip
    return encode_jpeg(crop, quality)


# ----------------------------------------------------------------------------- the store


@dataclass
class _Clip:
    match: Path
    entry: int
    created: float
    frames: list[str]
    own_bytes: int  # its JSON and crops


class ClipStore:
    """The clips of every match under one data dir (see the module doc), with their sizes
    indexed in memory for pruning. Not thread-safe: the recorder serialises calls."""

    def __init__(self, config: ReplayConfig, *, clock: Callable[[], float] = time.time,
                 disk_usage: Callable[[str], Any] = shutil.disk_usage):  # fmt: skip
        self.cfg = config
        self.clock = clock
        self.disk_usage = disk_usage
        self._base: Path | None = None
        self._clips: dict[tuple[Path, int], _Clip] = {}
        self._frame_refs: dict[tuple[Path, str], int] = {}
        self._frame_bytes: dict[tuple[Path, str], int] = {}
        self.total_bytes = 0
        self.stopped: str | None = None  # why clips stopped (disk full, write error)
        self._stopped_at = 0.0
        self.pruned = 0

    # ----- layout

    @staticmethod
    def dir_for(db: Path) -> Path:
        return Path(db).with_suffix(".replay")

    def clip_path(self, match: Path, entry: int) -> Path:
        return match / "clips" / f"{entry:06d}.json"

    def index(self, base: Path) -> None:
        """Learn the clips already on disk under `base` (the matches dir), once."""
        base = Path(base)
        if self._base == base:
            return
        self._base = base
        self._clips.clear()
        self._frame_refs.clear()
        self._frame_bytes.clear()
        self.total_bytes = 0
        for path in sorted(base.glob("*.replay/clips/*.json")):
            try:
                meta = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if meta.get("pruned"):
                continue
            match = path.parent.parent
            own = path.stat().st_size + sum(
                _size(match / "crops" / c["crop"]) for c in meta.get("cards", []) if c.get("crop")
            )
            self._add(match, int(meta["entry"]), float(meta.get("created", 0.0)),
                      [f["file"] for f in meta.get("frames", [])], own)  # fmt: skip

    def _add(self, match: Path, entry: int, created: float, frames: list[str], own: int) -> None:
        old = self._clips.pop((match, entry), None)
        if old is not None:
            self._release(old)
        self._clips[(match, entry)] = _Clip(match, entry, created, frames, own)
        self.total_bytes += own
        for name in frames:
            key = (match, name)
            if key not in self._frame_refs:
                self._frame_refs[key] = 0
                size = _size(match / "frames" / name)
                self._frame_bytes[key] = size
                self.total_bytes += size
            self._frame_refs[key] += 1

    def _release(self, clip: _Clip) -> None:
        """Forget a clip: its crops and the frames no other clip shows are deleted."""
        self.total_bytes -= clip.own_bytes
        for name in clip.frames:
            key = (clip.match, name)
            self._frame_refs[key] -= 1
            if self._frame_refs[key] <= 0:
                del self._frame_refs[key]
                self.total_bytes -= self._frame_bytes.pop(key, 0)
                _unlink(clip.match / "frames" / name)

    # ----- writing

    def room(self, where: Path) -> bool:
        """Is there room to write (free space above the reserve)? Stops the clips when not,
        looks again every RETRY_S seconds after."""
        now = self.clock()
        if self.stopped and now - self._stopped_at < RETRY_S:
            return False
        try:
            probe = where
            while not probe.exists() and probe.parent != probe:
                probe = probe.parent
            free = self.disk_usage(str(probe)).free
        except OSError as exc:
            self.stop(f"clips stopped: the data disk cannot be read ({exc.strerror or exc})")
            return False
        if free < self.cfg.min_free_mb * MB:
            self.stop(
                f"clips stopped: only {free / MB:.0f} MB free on the data disk "
                f"(kept free: {self.cfg.min_free_mb:.0f} MB for the game log); the game goes on"
            )
            return False
        self.stopped = None
        return True

    def stop(self, message: str) -> None:
        if self.stopped is None:
            log.warning("%s", message)
        self.stopped, self._stopped_at = message, self.clock()

    def save(self, match: Path, entry: int, meta: dict[str, Any], frames: list[KeptFrame],
             crops: list[bytes | None], protect: tuple[Path, int] | None = None) -> bool:  # fmt: skip
        """Write one clip (frames not on disk yet, crops, then its JSON last, atomically).
        False when clips are stopped or the write failed (then they stop)."""
        if not self.room(match):
            return False
        try:
            for sub in ("frames", "crops", "clips"):
                (match / sub).mkdir(parents=True, exist_ok=True)
            names = []
            for f in frames:
                name = f"{meta['run']}-{f.number:07d}.jpg"
                path = match / "frames" / name
                if not path.exists():
                    path.write_bytes(f.jpeg)
                names.append(name)
            own = 0
            cards = meta.get("cards", [])
            for i, jpeg in enumerate(crops):
                if jpeg is None or i >= len(cards):
                    continue
                name = f"{entry:06d}-{i}.jpg"
                (match / "crops" / name).write_bytes(jpeg)
                cards[i]["crop"] = name
                own += len(jpeg)
            t0 = frames[0].timestamp if frames else meta.get("timestamp", 0.0)
            meta = {
                **meta,
                "created": self.clock(),
                "frames": [
                    {"file": n, "n": f.number, "t": round(f.timestamp - t0, 3), "boxes": list(f.boxes)}
                    for n, f in zip(names, frames, strict=True)
                ],
            }
            own += _write_json(self.clip_path(match, entry), meta)
        except OSError as exc:
            self.stop(f"clips stopped: cannot write to {match} ({exc.strerror or exc}); the game goes on")
            return False
        self._add(match, entry, meta["created"], names, own)
        self.prune(protect)
        return True

    def prune(self, protect: tuple[Path, int] | None = None) -> int:
        """Prune the oldest clips while the clips take more than `keep_mb` or are older than
        `keep_hours`; the round in play (`protect`: its match and first entry) is kept."""
        limit, oldest = self.cfg.keep_mb * MB, self.clock() - self.cfg.keep_hours * 3600
        n = 0
        for clip in sorted(self._clips.values(), key=lambda c: c.created):
            too_big, too_old = self.total_bytes > limit, clip.created < oldest
            if not (too_big or too_old):
                break
            if protect is not None and clip.match == protect[0] and clip.entry >= protect[1]:
                continue
            self._prune(clip, "older than the kept hours" if too_old else "over the disk kept for clips")
            n += 1
        self.pruned += n
        return n

    def _prune(self, clip: _Clip, why: str) -> None:
        del self._clips[(clip.match, clip.entry)]
        self._release(clip)
        path = self.clip_path(clip.match, clip.entry)
        try:
            meta = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            meta = {"entry": clip.entry}
        for c in meta.get("cards", []):
            name = c.pop("crop", None)
            if name:
                _unlink(clip.match / "crops" / name)
        meta.update(frames=[], pruned=f"pruned {time.strftime('%Y-%m-%d %H:%M', time.localtime(self.clock()))}: {why}")
        try:
            _write_json(path, meta)
        except OSError:
            _unlink(path)

    # ----- reading

    def load(self, match: Path, entry: int) -> dict[str, Any] | None:
        try:
            return json.loads(self.clip_path(match, entry).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def add_mark(self, match: Path, entry: int, mark: dict[str, Any]) -> bool:
        meta = self.load(match, entry)
        if meta is None:
            return False
        meta.setdefault("marks", []).append(mark)
        try:
            _write_json(self.clip_path(match, entry), meta)
        except OSError:
            return False
        return True


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


def _write_json(path: Path, data: dict[str, Any]) -> int:
    tmp = path.with_suffix(".tmp")
    body = json.dumps(data, separators=(",", ":")).encode()
    tmp.write_bytes(body)
    os.replace(tmp, path)
    return len(body)


# ----------------------------------------------------------------------------- the recorder


@dataclass
class _Pending:
    entry: int
    match: Path
    timestamp: float
    frame: int | None  # the frame the observation was decided on (its crops)
    meta: dict[str, Any]
    marks: list[dict[str, Any]] = field(default_factory=list)


def shrink(image: np.ndarray, width: int) -> np.ndarray:
    """`image` scaled down to `width` pixels wide: halved by area averaging while it is twice
    as wide or more (OpenCV's fast path), then linear for the rest (a 1280x720 frame to 480
    costs ~1 ms; area averaging straight to 480 costs ten times that)."""
    h, w = image.shape[:2]
    while w >= 2 * width:
        image = cv2.resize(image, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
        h, w = image.shape[:2]
    if w > width:
        image = cv2.resize(image, (width, max(1, round(h * width / w))), interpolation=cv2.INTER_LINEAR)
    return image


class ReplayRecorder:
    """The ring buffer and the clip store, as the table runs them (see the module doc).

    `on_problem(message)` is called once when clips stop (disk full, write error) and with
    None when they resume. `sync=True` writes clips in the calling thread (tests)."""

    def __init__(
        self,
        config: ReplayConfig | None = None,
        *,
        clock: Callable[[], float] = time.time,
        disk_usage: Callable[[str], Any] = shutil.disk_usage,
        on_problem: Callable[[str | None], None] | None = None,
        sync: bool = False,
        base_dir: Path | None = None,
    ):
        self.cfg = config or ReplayConfig()
        self.ring = FrameRing(self.cfg.ring_seconds, int(self.cfg.ring_mb * MB))
        self.store = ClipStore(self.cfg, clock=clock, disk_usage=disk_usage)
        self.on_problem = on_problem
        self.base_dir = Path(base_dir) if base_dir is not None else None
        self.run = time.strftime("%Y%m%d%H%M%S")
        self.match: Path | None = None
        self._protect: tuple[Path, int] | None = None
        self._lock = threading.Lock()
        self._store_lock = threading.Lock()
        self._pending: list[_Pending] = []
        self._crops: OrderedDict[int, list[bytes | None]] = OrderedDict()  # frame -> crops
        self._last_kept = -1e18
        self._last_t = 0.0
        self._reported: str | None = None
        self.encode_ms: deque[float] = deque(maxlen=500)  # the encoder's time per kept frame
        self.encode_cpu_ms: deque[float] = deque(maxlen=500)  # its CPU time (load-independent)
        self.loop_ms: deque[float] = deque(maxlen=500)  # what the frame loop spent on replay
        self.dropped = 0  # frames the encoder had no time for
        self._sync = sync
        self._jobs: queue.Queue = queue.Queue()
        self._frames: queue.Queue = queue.Queue(maxsize=16)
        self._writer: threading.Thread | None = None
        self._encoder: threading.Thread | None = None
        if not sync:
            self._writer = threading.Thread(target=self._write_loop, name="replay-writer", daemon=True)
            self._writer.start()
            self._encoder = threading.Thread(target=self._encode_loop, name="replay-encoder", daemon=True)
            self._encoder.start()

    # ----- where the clips go

    def set_match(self, db: str | Path | None) -> None:
        """The match now played: its log file (clips go beside it), or None (a log kept in
        memory: clips go to `base_dir` when given, else none are kept)."""
        if db is not None:
            match = ClipStore.dir_for(Path(db))
        elif self.base_dir is not None:
            match = self.base_dir / f"session-{self.run}.replay"
        else:
            match = None
        with self._lock:
            self.match, self._protect = match, None
        if match is not None:
            with self._store_lock:
                self.store.index(match.parent)

    def protect_from(self, entry: int) -> None:
        """A round starts at log entry `entry`: its clips are never pruned while it is played."""
        with self._lock:
            if self.match is not None:
                self._protect = (self.match, entry)

    # ----- the vision side

    def on_result(self, result) -> None:
        """A pipeline listener: keep the frame (thinned to `fps`), and cut the crop of every
        card an observation of this frame read."""
        observations = [o for o in result.observations if _cards(o)]
        self.add_frame(result.frame.number, result.frame.timestamp, result.frame.image,
                       result.detections, observations)  # fmt: skip

    def add_frame(self, number: int, timestamp: float, image: np.ndarray, detections=(), observations=()) -> None:
        """A frame as the camera gave it (read-only, full size) and what was found in it.
        Cheap: a kept frame is handed to the encoder thread by reference."""
        t0 = time.perf_counter()
        boxes = [_box(c) for o in observations for c in _cards(o)]
        if not boxes and timestamp - self._last_kept < 1.0 / self.cfg.fps - 1e-6:
            self.loop_ms.append((time.perf_counter() - t0) * 1000)
            return
        self._last_kept = timestamp
        job = (number, timestamp, image, list(detections), boxes)
        if self._sync:
            self._encode(*job)
            return
        try:
            self._frames.put_nowait(job)
        except queue.Full:
            self.dropped += 1
        self.loop_ms.append((time.perf_counter() - t0) * 1000)

    def _encode_loop(self) -> None:
        while True:
            job = self._frames.get()
            try:
                if job is None:
                    return
                self._encode(*job)
            except Exception:  # noqa: BLE001 - a frame must never stop the table
                log.exception("replay: a frame could not be kept")
            finally:
                self._frames.task_done()

    def _encode(self, number: int, timestamp: float, image: np.ndarray, detections: list, boxes: list) -> None:
        t0, c0 = time.perf_counter(), time.thread_time()
        if boxes:  # the cards an observation read, cut from the full-size frame
            crops = [crop_card(image, b, self.cfg.crop_height) for b in boxes]
            with self._lock:
                self._crops[number] = crops
                while len(self._crops) > 64:
                    self._crops.popitem(last=False)
        small = shrink(image, self.cfg.width)
        s = small.shape[1] / image.shape[1]
        marks = tuple((d.card, round(float(d.confidence), 2), [round(v * s, 1) for v in _corners(d)]) for d in detections)
        self.ring.add(KeptFrame(number, timestamp, encode_jpeg(small, self.cfg.quality), marks,
                                (small.shape[1], small.shape[0])))  # fmt: skip
        self.encode_ms.append((time.perf_counter() - t0) * 1000)
        self.encode_cpu_ms.append((time.thread_time() - c0) * 1000)
        self._last_t = timestamp
        self._due(timestamp)

    # ----- the app side

    def keep(self, entry: int, observation: dict[str, Any]) -> None:
        """Log entry `entry` came from `observation` (its JSON): keep the clip around it."""
        with self._lock:
            match = self.match
            if match is None:
                return
            frame = observation.get("frame")
            cards = [
                {k: c.get(k) for k in ("card", "confidence", "candidates") if c.get(k) is not None}
                for c in observation.get("cards", []) or []
            ]
            ts = float(observation.get("timestamp", self._last_t))
            meta = {
                "entry": entry, "run": self.run, "frame": frame, "timestamp": ts,
                "observation": observation.get("type"), "cards": cards, "fps": self.cfg.fps, "marks": [],
            }  # fmt: skip
            self._pending.append(_Pending(entry, match, ts, frame, meta))
        self._due(self._last_t)

    def _due(self, now: float) -> None:
        with self._lock:
            due = [p for p in self._pending if now >= p.timestamp + self.cfg.after_s]
            if not due:
                return
            self._pending = [p for p in self._pending if p not in due]
        for p in due:
            self._submit(p)

    def _submit(self, p: _Pending) -> None:
        frames = self.ring.between(p.timestamp - self.cfg.before_s, p.timestamp + self.cfg.after_s)
        with self._lock:
            crops = list(self._crops.get(p.frame, []))[: len(p.meta["cards"])] if p.frame is not None else []
        if self._sync:
            self._write(p, frames, crops)
        else:
            self._jobs.put((p, frames, crops))

    def _write_loop(self) -> None:
        while True:
            job = self._jobs.get()
            try:
                if job is None:
                    return
                self._write(*job)
            except Exception:  # noqa: BLE001 - a clip must never stop the table
                log.exception("replay: a clip could not be written")
            finally:
                self._jobs.task_done()

    def _write(self, p: _Pending, frames: list[KeptFrame], crops: list[bytes | None]) -> None:
        meta = dict(p.meta)
        if frames:
            meta["size"] = list(frames[0].size)
            meta["at"] = min(range(len(frames)), key=lambda i: abs(frames[i].timestamp - p.timestamp))
        meta["marks"] = list(p.marks)
        with self._lock:
            protect = self._protect
        with self._store_lock:
            self.store.save(p.match, p.entry, meta, frames, crops, protect)
            problem = self.store.stopped
        if problem != self._reported:
            self._reported = problem
            if self.on_problem is not None:
                self.on_problem(problem)

    def flush(self, timeout: float = 10.0) -> None:
        """Keep the frames handed over so far, write every clip still waiting for its
        `after_s` seconds now, and wait for the writer (a stop, a test)."""
        deadline = time.monotonic() + timeout
        while self._frames.unfinished_tasks and time.monotonic() < deadline:
            time.sleep(0.01)
        with self._lock:
            pending, self._pending = self._pending, []
        for p in pending:
            self._submit(p)
        while self._jobs.unfinished_tasks and time.monotonic() < deadline:
            time.sleep(0.01)

    def close(self) -> None:
        self.flush()
        for q, attr in ((self._frames, "_encoder"), (self._jobs, "_writer")):
            thread = getattr(self, attr)
            if thread is not None:
                q.put(None)
                thread.join(5.0)
                setattr(self, attr, None)

    # ----- reading (the dashboard, through the app hub)

    def clip(self, entry: int) -> dict[str, Any]:
        """{"state": "ok", "fps", "size", "at", "frames": [{"n", "t", "boxes"}], "cards",
        "marks"} or {"state": "pruned" | "recording" | "none" | "off", "message"}."""
        with self._lock:
            match = self.match
            waiting = any(p.entry == entry and p.match == match for p in self._pending)
        if match is None:
            return {"state": "off", "message": "no clips are kept: the match has no data dir"}
        if waiting:
            return {"state": "recording",
                    "message": f"the clip of entry {entry} is still being recorded ({self.cfg.after_s:g} s after the moment)"}  # fmt: skip
        meta = self.store.load(match, entry)
        if meta is None:
            why = f" ({self.store.stopped})" if self.store.stopped else ""
            return {"state": "none", "message": f"no clip was kept for entry {entry}{why}"}
        if meta.get("pruned"):
            return {"state": "pruned", "message": f"the clip of entry {entry} was {meta['pruned']}",
                    "cards": meta.get("cards", []), "marks": meta.get("marks", [])}  # fmt: skip
        return {
            "state": "ok",
            "fps": meta.get("fps"),
            "size": meta.get("size"),
            "at": meta.get("at", 0),
            "frames": [{"n": f["n"], "t": f["t"], "boxes": f["boxes"]} for f in meta.get("frames", [])],
            "cards": [{**c, "crop": bool(c.get("crop"))} for c in meta.get("cards", [])],
            "marks": meta.get("marks", []),
            "observation": meta.get("observation"),
        }

    def _file(self, entry: int, kind: str, index: int) -> bytes | None:
        match = self.match
        if match is None:
            return None
        meta = self.store.load(match, entry)
        if meta is None or meta.get("pruned"):
            return None
        items = meta.get(kind, [])
        if not 0 <= index < len(items):
            return None
        if kind == "frames":
            path = match / "frames" / items[index]["file"]
        else:
            name = items[index].get("crop")
            if not name:
                return None
            path = match / "crops" / name
        try:
            return path.read_bytes()
        except OSError:
            return None

    def frame(self, entry: int, index: int) -> bytes | None:
        return self._file(entry, "frames", index)

    def crop(self, entry: int, index: int) -> bytes | None:
        return self._file(entry, "cards", index)

    def mark(self, entry: int, mark: dict[str, Any]) -> None:
        """Keep the host's mark with the clip (or with the clip still being recorded)."""
        with self._lock:
            for p in self._pending:
                if p.entry == entry and p.match == self.match:
                    p.marks.append(mark)
                    return
            match = self.match
        if match is not None:
            with self._store_lock:
                self.store.add_mark(match, entry, mark)

    def status(self) -> dict[str, Any]:
        stopped = self.store.stopped
        return {
            "status": "off" if self.match is None else "stopped" if stopped else "recording",
            "message": stopped,
            "ring_frames": len(self.ring),
            "ring_mb": round(self.ring.nbytes / MB, 2),
            "disk_mb": round(self.store.total_bytes / MB, 1),
            "clips": len(self.store._clips),
            "dropped_frames": self.dropped,
        }
