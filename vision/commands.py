"""`uno-table detect`, `watch`, `bench` and `mat`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "detect", help="find and name the cards in images",
        description="Find and name every card in each image (a close-up of one card or a whole table).",
    )
    p.add_argument("images", nargs="+", metavar="IMAGE", help="image files (any size, any orientation)")
    p.add_argument("--json", action="store_true", help="one JSON line per image")
    p.add_argument("--save", type=Path, metavar="DIR", help="write annotated copies of the images here")
    _detector_args(p)
    p.set_defaults(func=cmd_detect)

    p = sub.add_parser(
        "watch", help="print table observations live from a camera, video, folder or the simulator",
        description="Run the vision pipeline on SOURCE and print each observation as it is decided.",
    )
    p.add_argument(
        "source", nargs="?", default="sim", metavar="SOURCE",
        help="sim | sim:SEED | picamera2 | a webcam index (0) | a stream URL | a video file | an image folder",
    )
    p.add_argument("--json", action="store_true", help="one JSON line per observation")
    p.add_argument("--frames", type=int, default=0, help="stop after this many frames (0: until the source ends)")
    p.add_argument("--paper", choices=["A3", "A4"], default="A3", help="paper size of the printed mat")
    p.add_argument("--no-mat", action="store_true", help="do not look for the mat; zones from the default layout")
    p.add_argument("--save", type=Path, metavar="DIR", help="write an annotated JPEG of each frame with an observation")
    _detector_args(p)
    p.set_defaults(func=cmd_watch)

    p = sub.add_parser(
        "bench", help="time the vision pipeline on 1280x720 table frames",
        description="Per-stage milliseconds (decode, detect, classify, track), end-to-end frames per second and peak "
        "memory: on a busy frame with every zone read each time (the worst case), and on a rendered game at default "
        "settings (still zones keep their last reading).",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--frames", type=int, default=60, help="frames of the busy table frame to time (default 60)")
    p.add_argument("--game-frames", type=int, default=400,
                   help="frames of a rendered game to time at default settings (default 400; 0: skip)")
    p.add_argument("--busy-seeds", type=int, default=12, metavar="N",
                   help="also time the busy frame dealt with seeds 1..N, a few frames each: one frame's cost hangs "
                        "on how surely its few cards happen to be read (default 12; 0: skip)")
    p.add_argument("--no-replay", action="store_true",
                   help="time without instant replay (by default its frames are kept, as `run` keeps them)")
    p.add_argument("--deck-look", metavar="LOOK",
                   help="render the frames with this deck under this light (as `python -m vision.evaluate "
                        "--deck-look`, e.g. \"2010s~-12+wear@warm\"): time a `--deck` on its own cards")
    p.add_argument("--deck-seed", type=int, default=1, help="the deck look's printing seed (default 1)")
    _detector_args(p)
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser(
        "mat", help="write the printable play mat (PDF)",
        description="A page with ArUco markers and the discard pile, draw pile and reveal zone drawn. Print at 100%%.",
    )
    p.add_argument("--out", type=Path, default=Path("mat.pdf"), help="output file (.pdf, or .png for an image)")
    p.add_argument("--paper", choices=["A3", "A4"], default="A3", help="paper size (landscape)")
    p.add_argument("--dpi", type=int, default=200, help="resolution of the page (default 200)")
    p.set_defaults(func=cmd_mat)


def _detector_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--model", type=Path, metavar="PATH",
        help="a detector .onnx or a YOLO .pt (ultralytics); default: the shipped detector",
    )
    p.add_argument("--classifier", type=Path, metavar="PATH", help="classifier .onnx; default: the shipped classifier")
    p.add_argument("--deck", metavar="NAME", help="a deck taught with `uno-table deck`: its fitted classifier")
    p.add_argument(
        "--detector", choices=["onnx", "ultralytics", "sim-truth"], default=None,
        help="backend (default: onnx, or ultralytics for a .pt model); sim-truth reads the simulator's truth",
    )


def _detector_config(args, photos: bool = False):
    """The detector the arguments ask for; `photos`: still photos (the ONNX backend reads
    small cards in tiles)."""
    from vision import config as c

    kind = args.detector or ("ultralytics" if args.model and args.model.suffix == ".pt" else "onnx")
    deck = getattr(args, "deck", None)
    if deck is not None and kind != "onnx":
        from vision.errors import ModelError

        raise ModelError(f"--deck needs the onnx backend, not {kind}")
    if kind == "ultralytics":
        if args.model is None:
            from vision.errors import ModelError

            raise ModelError("the ultralytics backend needs --model PATH.pt")
        return c.UltralyticsDetectorConfig(path=args.model)
    if kind == "sim-truth":
        return c.SimTruthDetectorConfig()
    return c.OnnxDetectorConfig(detector_path=args.model, classifier_path=args.classifier, deck=deck, tiles=photos)


# ---------------------------------------------------------------------------- detect
def cmd_detect(args) -> int:
    import cv2

    from vision.annotate import annotate
    from vision.config import TrackerConfig
    from vision.detectors import make_detector

    cfg = _detector_config(args, photos=True)
    if cfg.type == "sim-truth":
        from vision.errors import ModelError

        raise ModelError("detect needs a real model (onnx or ultralytics), not sim-truth")
    detector = make_detector(cfg)
    # a reading under the bar the table's tracker sets for a card (its median confidence) is
    # said to be unsure: a bare patterned cloth can be read so
    unsure_below = TrackerConfig().min_median_confidence
    failures = 0
    if not args.json:
        print(f"{'IMAGE':<40} {'CARD':<16} {'CONF':>5}  BOX")
    if args.save:
        _save_dir(args.save)
    for name in args.images:
        path = Path(name)
        image = cv2.imread(str(path), cv2.IMREAD_COLOR) if path.is_file() else None
        if image is None:
            failures += 1
            why = "no such file" if not path.exists() else "not a readable image"
            print(f"uno-table detect: {name}: {why}", file=sys.stderr)
            continue
        dets = detector.detect(image)
        if args.json:
            # a card's own JSON, less its corners and candidates (`detect`'s one line stays short)
            cards = [{k: v for k, v in d.to_json().items() if k not in ("quad", "candidates")} for d in dets]
            print(json.dumps({"image": name, "cards": cards}), flush=True)
        else:
            if not dets:
                print(f"{name:<40} {'(no cards)':<16}")
            for d in dets:
                box = ", ".join(f"{v:.0f}" for v in d.box)
                seen = "  (read mirrored: a selfie view)" if d.mirrored else ""
                if d.relit is not None:
                    seen += "  (a dark or tinted photo: read relit, B/G/R x" + "/".join(f"{g:.1f}" for g in d.relit) + ")"
                if d.softened:
                    seen += "  (a noisy photo: read softened)"
                if d.deglared:
                    seen += "  (a lamp's glare: read with it taken off)"
                if d.searched:
                    seen += "  (no box: found by searching the photo, index and face agreeing)"
                if d.confidence < unsure_below:
                    seen += "  (unsure: the table would not take this reading)"
                print(f"{name:<40} {d.card:<16} {d.confidence:5.2f}  [{box}]{seen}")
        if args.save:
            out = args.save / (path.stem + ".annotated.jpg")
            try:
                written = cv2.imwrite(str(out), annotate(image, dets))
            except cv2.error:
                written = False
            if not written:
                from vision.errors import SaveError

                raise SaveError(f"--save: cannot write {out} (is the folder writable and the disk not full?)")
    return 1 if failures else 0


def _save_dir(folder: Path) -> None:
    """The --save folder, made now; one clear line when it cannot be (a file, no rights)."""
    from vision.errors import SaveError

    if folder.exists() and not folder.is_dir():
        raise SaveError(f"--save {folder}: that is a file, not a folder; give a folder for the annotated images")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".uno-table-write-test"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise SaveError(f"--save {folder}: cannot write there ({exc.strerror or exc})") from None


# ---------------------------------------------------------------------------- watch
def _describe(obs) -> str:
    d = obs.to_json()
    kind = d["type"]
    if kind in ("discard", "reveal"):
        cards = " ".join(c["card"] for c in d["cards"]) or "(empty)"
        what = "played" if kind == "discard" else "revealed"
        return f"frame {d['frame']:>6}  {what:<9} {cards}  ({d['confidence']:.2f})"
    if kind == "covered":
        return f"frame {d['frame']:>6}  pile {'covered' if d['covered'] else 'clear'}  ({d['confidence']:.2f})"
    return f"frame {d['frame']:>6}  likely draw (inferred)  ({d['confidence']:.2f})"


def cmd_watch(args) -> int:
    import logging

    from vision import config as c
    from vision.annotate import annotate_result
    from vision.hub import FrameHub
    from vision.pipeline import VisionPipeline
    from vision.sources import make_source, source_config_from_arg

    logging.basicConfig(level=logging.WARNING, format="uno-table watch: %(message)s")
    src_cfg = source_config_from_arg(args.source)
    det_cfg = _detector_config(args)
    config = c.VisionConfig(
        source=src_cfg, detector=det_cfg,
        calibration=c.CalibrationConfig(use_mat=not args.no_mat, paper=args.paper),
    )
    pipeline = VisionPipeline(config)
    source = make_source(config.source)
    if source.finite:
        # A file that is not there will not appear: say so now instead of retrying.
        source.open()
        source.close()
    if args.save:
        _save_dir(args.save)
    # A file or the simulator is read frame by frame; a live camera skips frames when slow.
    hub = FrameHub(source, config.retry)
    reader = hub.reader(lossless=source.finite)
    hub.start()
    n = 0
    try:
        for frame in reader:
            result = pipeline.process(frame)
            n += 1
            for obs in result.observations:
                if obs.type == "covered" and not args.json:
                    continue  # the live text view shows plays, reveals and draws
                print(json.dumps(obs.to_json()) if args.json else _describe(obs), flush=True)
            if args.save and result.observations:
                (args.save / f"frame-{frame.number:06d}.jpg").write_bytes(annotate_result(result, 80))
            if args.frames and n >= args.frames:
                break
    except KeyboardInterrupt:
        pass
    finally:
        hub.stop()
    stats = hub.stats.to_json()
    print(f"uno-table watch: {n} frames processed, {stats['corrupt']} corrupt skipped", file=sys.stderr)
    return 0


# ---------------------------------------------------------------------------- bench
def cmd_bench(args) -> int:
    from vision.bench import run_bench

    look = None
    if args.deck_look:
        from vision.decks.looks import DeckLook

        try:
            look = DeckLook.parse(args.deck_look, seed=args.deck_seed)
        except ValueError as exc:
            print(f"error: --deck-look: {exc}", file=sys.stderr)
            return 2
    if args.busy_seeds < 0:
        print(f"error: --busy-seeds: {args.busy_seeds} is below 0 (0 skips the busy seeds)", file=sys.stderr)
        return 2
    result = run_bench(_detector_config(args), frames=args.frames, game_frames_n=args.game_frames,
                       replay=not args.no_replay, look=look,
                       busy_seeds=list(range(1, args.busy_seeds + 1)))  # fmt: skip
    if args.json:
        print(json.dumps(result))
    else:
        for k, v in result.items():
            print(f"{k:>24}: {v}")
    return 0


# ---------------------------------------------------------------------------- mat
def cmd_mat(args) -> int:
    from vision.mat import render_mat, write_mat_pdf

    if args.out.suffix.lower() == ".pdf":
        write_mat_pdf(args.out, args.paper, args.dpi)
    else:
        import cv2

        args.out.parent.mkdir(parents=True, exist_ok=True)
        if not cv2.imwrite(str(args.out), render_mat(args.paper, args.dpi / 25.4)):
            from table.errors import UnoTableError

            raise UnoTableError(f"cannot write {args.out} (use .pdf or .png)")
    print(f"wrote {args.out} ({args.paper}, print at 100% scale)")
    return 0
