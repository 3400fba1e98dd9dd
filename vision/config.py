"""Vision configuration: validated once at start (pydantic, extra="forbid").

Sources and detector backends are plugins chosen by a `type` key (Frigate style)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Point = tuple[float, float]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# ----------------------------------------------------------------------------- sources
class PiCameraSourceConfig(_Strict):
    """The Raspberry Pi camera through picamera2 (imported only when used)."""

    type: Literal["picamera2"] = Field("picamera2", description="Source kind.")
    camera: int = Field(0, ge=0, le=7, description="Camera number on the Pi.")
    main_size: tuple[int, int] = Field(
        (1280, 720), description="Main stream (display) width, height in pixels."
    )
    lores_size: tuple[int, int] = Field(
        (640, 360), description="Low-resolution stream (detector) width, height in pixels."
    )
    fps: float = Field(20.0, gt=0, le=120, description="Frame rate asked of the camera.")


class DeviceSourceConfig(_Strict):
    """An OpenCV capture device: a USB webcam index or a stream URL."""

    type: Literal["device"] = Field("device", description="Source kind.")
    device: int | str = Field(0, description="Webcam index (0, 1, ...) or a stream URL.")
    width: int = Field(1280, ge=16, le=7680, description="Requested frame width in pixels.")
    height: int = Field(720, ge=16, le=4320, description="Requested frame height in pixels.")
    fps: float = Field(30.0, gt=0, le=240, description="Requested frame rate.")


class VideoSourceConfig(_Strict):
    """A video file, read frame by frame."""

    type: Literal["video"] = Field("video", description="Source kind.")
    path: Path = Field(description="Video file path.")
    realtime: bool = Field(
        False, description="Pace frames at the file's frame rate (as a live camera would)."
    )
    loop: bool = Field(False, description="Start again at the end instead of stopping.")


class FolderSourceConfig(_Strict):
    """A folder of still images, in name order."""

    type: Literal["folder"] = Field("folder", description="Source kind.")
    path: Path = Field(description="Folder holding .jpg/.png/.bmp/.webp images.")
    fps: float = Field(5.0, gt=0, le=240, description="Frame rate when realtime is on.")
    realtime: bool = Field(False, description="Pace frames at `fps`.")
    loop: bool = Field(False, description="Start again at the end instead of stopping.")


class SimSourceConfig(_Strict):
    """The simulated table: frames rendered from a scripted sequence of table actions."""

    type: Literal["sim"] = Field("sim", description="Source kind.")
    seed: int = Field(0, ge=0, description="Seed of the scripted game and of the renders.")
    plays: int = Field(30, ge=1, le=100_000, description="Plays in the built-in script.")
    width: int = Field(1280, ge=320, le=3840, description="Frame width in pixels.")
    height: int = Field(720, ge=240, le=2160, description="Frame height in pixels.")
    fps: float = Field(20.0, gt=0, le=120, description="Simulated camera frame rate.")
    realtime: bool = Field(False, description="Pace frames at `fps` (a live demo).")
    mat: bool = Field(True, description="Draw the printed play mat (ArUco markers) on the table.")
    faces: str = Field(
        "render",
        description="Card faces: `render` (drawn), `real` (photos of shared/data/real-cards-mit) "
        "or a folder of single-card photos with labels.csv (vision.real_faces).",
    )


SourceConfig = Annotated[
    PiCameraSourceConfig
    | DeviceSourceConfig
    | VideoSourceConfig
    | FolderSourceConfig
    | SimSourceConfig,
    Field(discriminator="type"),
]


class CameraRetryConfig(_Strict):
    """How the capture thread retries a camera that is missing or unplugged."""

    initial_s: float = Field(0.5, gt=0, le=60, description="First wait before a retry.")
    max_s: float = Field(10.0, gt=0, le=600, description="Longest wait between retries.")
    factor: float = Field(2.0, ge=1, le=10, description="Wait multiplier after each failure.")
    max_bad_reads: int = Field(
        30, ge=1, le=10_000, description="Failed reads in a row before the camera is reopened."
    )


# ----------------------------------------------------------------------------- detectors
class OnnxDetectorConfig(_Strict):
    """The shipped ONNX model(s) through ONNX Runtime (vision.recognizer)."""

    type: Literal["onnx"] = Field("onnx", description="Detector backend.")
    detector_path: Path | None = Field(
        None, description="Detector .onnx file; the shipped model when empty."
    )
    classifier_path: Path | None = Field(
        None, description="Classifier .onnx file; the shipped model when empty."
    )
    min_confidence: float = Field(
        0.25, ge=0, le=1, description="Detections below this confidence are dropped."
    )
    threads: int | None = Field(
        None, ge=1, le=64,
        description="ONNX Runtime threads per model (the detector and the classifier take turns; "
        "the table's two zones are read side by side). Empty: half the usable cores, 1 at least, "
        "3 at most: 1 on a 2-core machine, 2 on a Pi 4 or 5 (models/README.md, the frame budget).",
    )  # fmt: skip
    deck: str | None = Field(
        None, description="A deck taught to the table (`uno-table deck`): its fitted classifier "
        "replaces the generic one, and its own table detector the generic one where it has one "
        "(still photos keep theirs). Set through `vision.deck`.",
    )
    tiles: bool = Field(
        False, description="Read an image whose cards are small again in overlapping tiles "
        "(one detector run a tile), with the still photos' detector (covered, cut and "
        "close-up cards): for still photos (`uno-table detect` turns it on), too slow for the "
        "live camera.",
    )


class UltralyticsDetectorConfig(_Strict):
    """A YOLO `.pt` file through ultralytics (training machines; never needed on the Pi)."""

    type: Literal["ultralytics"] = Field("ultralytics", description="Detector backend.")
    path: Path = Field(description="YOLO weights (.pt) whose class names are card identifiers.")
    imgsz: int = Field(640, ge=32, le=4096, description="Inference image size.")
    min_confidence: float = Field(0.25, ge=0, le=1, description="Confidence threshold.")


class SimTruthDetectorConfig(_Strict):
    """Reads the simulated table's own truth, with noise: a stand-in detector for tests and
    for demos without a model. Works only with the `sim` source."""

    type: Literal["sim-truth"] = Field("sim-truth", description="Detector backend.")
    seed: int = Field(0, ge=0, description="Seed of the noise.")
    miss_rate: float = Field(0.05, ge=0, le=1, description="Chance a visible card is missed.")
    flicker_rate: float = Field(
        0.02, ge=0, le=1, description="Chance a detection is read as a wrong face for one frame."
    )
    min_visible: float = Field(
        0.6, ge=0, le=1, description="A card less visible than this is not detected."
    )


DetectorConfig = Annotated[
    OnnxDetectorConfig | UltralyticsDetectorConfig | SimTruthDetectorConfig,
    Field(discriminator="type"),
]


# ----------------------------------------------------------------------------- zones
class ZonePolygons(_Strict):
    """Zones as polygons in frame pixels, for a table without the printed mat."""

    discard: list[Point] = Field(
        min_length=3, description="Discard pile polygon, (x, y) pixels of the frame."
    )
    draw: list[Point] = Field(min_length=3, description="Draw pile polygon, pixels.")
    reveal: list[Point] = Field(min_length=3, description="Reveal zone polygon, pixels.")


class CalibrationConfig(_Strict):
    """Where the zones are: found from the printed mat, or given as polygons."""

    use_mat: bool = Field(True, description="Look for the printed mat's ArUco markers.")
    paper: Literal["A3", "A4"] = Field("A3", description="Paper size the mat was printed on.")
    redetect_every: int = Field(
        30, ge=1, le=10_000, description="Frames between searches for the mat (camera bumped)."
    )
    polygons: ZonePolygons | None = Field(
        None, description="Zones in frame pixels, used when the mat is off or not found."
    )


# ----------------------------------------------------------------------------- tracker
class TrackerConfig(_Strict):
    """When detections become facts (Frigate: hits, median score, zones)."""

    window: int = Field(5, ge=1, le=100, description="Frames in the sliding window.")
    min_hits: int = Field(3, ge=1, le=100, description="Frames of the window a card must be in.")
    min_median_confidence: float = Field(
        0.5, ge=0, le=1, description="Median confidence a card needs over the window."
    )
    same_pose_shift: float = Field(
        0.12, ge=0, le=2, description="Centre shift (card heights) within which a card is the same."
    )
    same_pose_angle: float = Field(
        8.0, ge=0, le=90, description="Angle change (degrees) within which a card is the same."
    )
    cover_skin_fraction: float = Field(
        0.04, ge=0, le=1, description="Skin-like share of a zone (above its empty reference) that means a hand."
    )
    motion_fraction: float = Field(
        0.01, ge=0, le=1, description="Share of a zone's pixels changing between frames that means motion."
    )
    require_activity: bool = Field(
        True, description="A new discard, or a card laid in the reveal zone, needs a hand or motion "
        "over its zone first (no flicker plays; what lay there when the camera started is not laid).",
    )
    quiet_frames: int = Field(
        1, ge=1, le=100, description="Still frames after which a covered zone is clear again."
    )
    changed_fraction: float = Field(
        0.06, ge=0, le=1, description="Share of a card's box whose grey level moved by 25+ that means the pile changed there."
    )
    absorb_frames: int = Field(
        12, ge=1, le=1000, description="Frames a still skin-like patch must hold before it counts as part of the table."
    )
    reveal_frames: int = Field(
        4, ge=1, le=100, description="Frames the reveal zone's set must hold before it is reported."
    )
    draw_min_frames: int = Field(
        1, ge=1, le=100,
        description="Frames a hand's fingertips must rest on the draw pile to count as a draw.",
    )
    draw_still: float = Field(
        0.02, ge=0, le=1,
        description="Most a fingertip may move between frames (share of the frame width) and still rest.",
    )


# ----------------------------------------------------------------------------- replay
class ReplayConfig(_Strict):
    """Instant replay: the recent frames kept in memory, and the clip behind every log entry
    that came from the camera kept on disk next to its match (vision/replay.py). The defaults
    fit a 2 GB Pi: about 2 MB of memory, a few hundred MB of disk per hour of play."""

    model_config = ConfigDict(extra="forbid", title="Replay")

    enabled: bool = Field(True, description="Keep recent frames and a clip behind every camera entry.")
    width: int = Field(
        480, ge=160, le=1920,
        description="Width in pixels of a kept frame (JPEG; the height follows the camera's shape).",
    )
    quality: int = Field(65, ge=20, le=95, description="JPEG quality of the kept frames (20-95).")
    fps: float = Field(
        5.0, gt=0, le=30,
        description="Frames kept per second (a faster camera is thinned; the frame an observation "
        "was decided on is always kept).",
    )
    ring_seconds: float = Field(
        20.0, ge=2, le=600, description="Seconds of recent frames kept in memory (the ring buffer)."
    )
    ring_mb: float = Field(
        16.0, ge=1, le=512, description="Most memory the ring buffer may take, in MB (oldest frames go first)."
    )
    before_s: float = Field(
        4.0, ge=0, le=60, description="Seconds of a clip before the moment the camera decided on."
    )
    after_s: float = Field(2.0, ge=0, le=60, description="Seconds of a clip after that moment.")
    crop_height: int = Field(
        160, ge=48, le=720, description="Height in pixels of the crop kept of each card read."
    )
    keep_mb: float = Field(
        2048.0, ge=16, le=1_000_000,
        description="Most disk all clips may take, every match together, in MB; the oldest clips are "
        "pruned first, never those of the round in play.",
    )
    keep_hours: float = Field(
        72.0, gt=0, le=24 * 365, description="Clips older than this are pruned (those of the round in play kept)."
    )
    min_free_mb: float = Field(
        256.0, ge=0, le=1_000_000,
        description="Clips stop (the game and its log go on, the host is told) when the data disk "
        "has less free space than this, in MB.",
    )

    @model_validator(mode="after")
    def _clip_fits(self) -> ReplayConfig:
        if self.before_s + self.after_s > self.ring_seconds:
            raise ValueError(
                f"before_s + after_s ({self.before_s + self.after_s:g} s) must fit in ring_seconds "
                f"({self.ring_seconds:g} s): a clip is cut from the ring buffer"
            )
        return self


class VisionConfig(_Strict):
    """Everything vision needs."""

    deck: str | None = Field(
        None, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$",
        description="The deck on the table, taught with `uno-table deck learn/fit NAME`: the card "
        "classifier adapted to it is used instead of the generic one, and the table's detector taught "
        "it (`uno-table deck detector NAME`) where there is one. Empty: the generic models.",
    )

    source: SourceConfig = Field(
        default_factory=lambda: SimSourceConfig(), description="Where frames come from."
    )
    retry: CameraRetryConfig = Field(
        default_factory=CameraRetryConfig, description="Camera retry and backoff."
    )
    detector: DetectorConfig = Field(
        default_factory=lambda: OnnxDetectorConfig(), description="Card detector backend."
    )
    calibration: CalibrationConfig = Field(
        default_factory=CalibrationConfig, description="Mat and zones."
    )
    tracker: TrackerConfig = Field(default_factory=TrackerConfig, description="Tracker settings.")
    detect_region: Literal["zones", "frame"] = Field(
        "zones",
        description="Where the detector looks. `zones`: once per zone (discard pile, reveal zone), "
        "each cropped from the full frame, so a card fills several times more of the detector's "
        "input than in the whole frame (its corners, and so its reading, are that much sharper); "
        "`frame`: the whole frame in one pass (cards anywhere, e.g. `watch` without zones).",
    )
    zone_margin: float = Field(
        0.2, ge=0, le=1,
        description="With detect_region=zones: each crop reaches this share of the zone's smaller "
        "side beyond it (a card half over the printed edge is still read whole).",
    )
    skip_still: bool = Field(
        True,
        description="With detect_region=zones: a zone whose pixels did not change since it was "
        "last read keeps that reading instead of running the model again (Frigate: detect where "
        "there is motion). A still table then costs a few milliseconds a frame.",
    )
    still_fraction: float = Field(
        0.002, ge=0, le=1,
        description="Share of a zone's pixels (quarter scale, blurred grey) that may move by 25+ "
        "grey levels and still count as unchanged.",
    )
    reread_every: int = Field(
        20, ge=1, le=10_000,
        description="A still zone is read again after this many frames anyway (slow light changes).",
    )
    replay: ReplayConfig = Field(
        default_factory=ReplayConfig, description="Instant replay: ring buffer and clips on disk."
    )
    detect_on: Literal["main", "lores"] = Field(
        "main",
        description="Stream the detector reads when the camera has two (picamera2). The shipped "
        "recognizer shrinks the frame for its detector itself and reads each card from the full "
        "resolution, so `main`; `lores` saves the resize for a single-stage model (and reads the whole "
        "small frame: detect_region does not apply).",
    )

    @model_validator(mode="after")
    def _deck_to_detector(self) -> VisionConfig:
        """`vision.deck` is read by the ONNX detector (a stand-in reading the truth ignores it)."""
        if self.deck is not None and self.detector.type == "ultralytics":
            raise ValueError("vision.deck needs the onnx detector (a deck adapts the ONNX card classifier)")
        if self.detector.type == "onnx" and self.detector.deck != self.deck and self.deck is not None:
            self.detector = self.detector.model_copy(update={"deck": self.deck})
        return self
