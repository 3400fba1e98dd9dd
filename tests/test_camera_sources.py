"""Camera sources behind one interface: image folder, video file, OpenCV device, sim."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from pydantic import ValidationError

from vision import config as c
from vision.errors import CameraError, CorruptFrameError, EndOfStream
from vision.hub import FrameHub
from vision.sources import make_source, source_config_from_arg
from vision.sources.folder import FolderSource
from vision.sources.opencv import DeviceSource, VideoFileSource


def _frame(i: int) -> np.ndarray:
    img = np.full((48, 64, 3), 30, np.uint8)
    cv2.putText(img, str(i), (5, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (255, 255, 255), 2)
    return img


def test_image_folder_in_name_order_skipping_a_corrupt_file(tmp_path):
    for i in range(3):
        cv2.imwrite(str(tmp_path / f"img{i}.png"), _frame(i))
    (tmp_path / "img1b.png").write_bytes(b"not a png")
    (tmp_path / "notes.txt").write_text("ignored")
    src = FolderSource(tmp_path)
    src.open()
    assert src.read().image.shape == (48, 64, 3)
    assert np.array_equal(src.read().image, cv2.imread(str(tmp_path / "img1.png")))
    with pytest.raises(CorruptFrameError, match="img1b.png"):
        src.read()
    src.read()
    with pytest.raises(EndOfStream):
        src.read()
    # Through the hub: the corrupt one is skipped and counted, the game goes on.
    hub = FrameHub(FolderSource(tmp_path))
    r = hub.reader(lossless=True)
    hub.start()
    frames = list(r)
    hub.stop()
    assert len(frames) == 3 and hub.stats.corrupt == 1


def test_video_file_written_with_videowriter_is_read_frame_by_frame(tmp_path):
    path = tmp_path / "game.avi"
    w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    assert w.isOpened()
    for i in range(12):
        w.write(_frame(i))
    w.release()
    src = make_source(c.VideoSourceConfig(path=path))
    assert isinstance(src, VideoFileSource)
    hub = FrameHub(src)
    r = hub.reader(lossless=True)
    hub.start()
    frames = list(r)
    hub.stop()
    assert [f.number for f in frames] == list(range(1, 13))
    assert src.fps == pytest.approx(10, abs=0.5)
    assert frames[5].image.shape == (48, 64, 3)


def test_missing_files_name_themselves(tmp_path):
    with pytest.raises(CameraError, match="video file .*nope.mp4.* does not exist"):
        VideoFileSource(tmp_path / "nope.mp4").open()
    (tmp_path / "fake.mp4").write_bytes(b"\x00" * 100)
    with pytest.raises(CameraError, match="cannot be decoded"):
        VideoFileSource(tmp_path / "fake.mp4").open()
    with pytest.raises(CameraError, match="image folder .* does not exist"):
        FolderSource(tmp_path / "none").open()


def test_a_missing_webcam_is_a_clear_error_naming_it():
    with pytest.raises(CameraError, match=r"camera 97 \(OpenCV device\) cannot be opened"):
        DeviceSource(97).open()


def test_source_config_is_chosen_by_type_and_rejects_unknown_keys(tmp_path):
    cfg = c.VisionConfig.model_validate({"source": {"type": "folder", "path": str(tmp_path)}})
    assert isinstance(cfg.source, c.FolderSourceConfig)
    with pytest.raises(ValidationError):
        c.VisionConfig.model_validate({"source": {"type": "device", "device": 0, "colour": "red"}})
    with pytest.raises(ValidationError):
        c.VisionConfig.model_validate({"source": {"type": "webcam"}})
    assert isinstance(source_config_from_arg("2"), c.DeviceSourceConfig)
    assert isinstance(source_config_from_arg("rtsp://cam/1"), c.DeviceSourceConfig)
    assert source_config_from_arg("sim:7").seed == 7
    assert isinstance(source_config_from_arg(str(tmp_path)), c.FolderSourceConfig)
    assert isinstance(source_config_from_arg("picamera2"), c.PiCameraSourceConfig)


def test_picamera2_off_the_pi_says_so():
    pytest.importorskip("cv2")
    try:
        import picamera2  # noqa: F401

        pytest.skip("picamera2 is installed here")
    except ImportError:
        pass
    src = make_source(c.PiCameraSourceConfig())
    with pytest.raises(CameraError, match="picamera2 is not installed"):
        src.open()


def test_the_simulated_table_is_a_finite_source_with_truth():
    src = make_source(c.SimSourceConfig(seed=3, plays=1, width=640, height=360))
    src.open()
    n = 0
    rests = []
    while True:
        try:
            cap = src.read()
        except EndOfStream:
            break
        n += 1
        assert cap.image.shape == (360, 640, 3)
        rests += [e for e in cap.truth.events if e.kind == "rest"]
    assert n > 10 and len(rests) == 1
