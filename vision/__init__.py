"""Camera sources, card recognition, calibration and zones, and the tracker that turns frames
into stable table observations. No rules live here.

The parts, each usable alone:
- `vision.config.VisionConfig`: every setting (source, retry, detector, calibration,
  tracker), pydantic with extra="forbid"; sources and detectors chosen by `type`.
- `vision.sources.make_source(config)`: picamera2, OpenCV device, video file, image folder,
  simulated table (`vision.sim.SimTable`: play, touch, draw, reveal, clear_reveal, idle).
- `vision.hub.FrameHub(source)`: one capture thread, many `reader()`s, retry with backoff.
- `vision.pipeline.VisionPipeline(config).process(frame) -> FrameResult`: calibration (mat
  or polygons), detector, tracker; `FrameResult.observations` are `vision.observations`
  dataclasses (CardsPlayed, CardsRevealed, PileCovered, LikelyDraw) with `to_json()`.
- `vision.annotate.annotate_result(result, quality)`: annotated frame (JPEG bytes).
- `vision.mat`: the printable mat and finding it in a frame.
- `vision.evaluate`, `vision.bench`: the figures.
"""
