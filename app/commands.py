"""`uno-table run` and `uno-table demo`: the whole table, wired.

This is the one place that builds the camera, GPIO and dashboard parts, and it imports them
inside the command handlers only, so `table/` stays free of that code at import time and a
machine without a camera can still run `simulate` and `replay`.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from pathlib import Path

from table.errors import ConfigError, UnoTableError


def port_number(text: str) -> int:
    """A TCP port for --port: 0 (any free port) to 65535."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0-65535)") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port number (0-65535)")
    return port


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="run the table: camera, referee, buttons, dashboard")
    p.add_argument("--config", type=Path, help="uno-table.yaml (default: ./uno-table.yaml if present)")
    p.add_argument("--source", help="camera: picamera2, a webcam index, a URL, a video file, an image folder, sim")
    p.add_argument("--mock-gpio", action="store_true", help="mock GPIO pins (a laptop): buttons on the dashboard's panel")
    p.add_argument("--pin-map", type=Path, help="pin map YAML (default from config, else the shipped 4-seat map)")
    p.add_argument("--host", help="dashboard address (default from config: 0.0.0.0)")
    p.add_argument("--port", type=port_number, help="dashboard port (default from config: 8000; 0: any free port, printed)")
    p.add_argument("--data-dir", type=Path, help="database and model overrides (default: $UNO_TABLE_DATA or ./data)")
    p.add_argument("--new-match", action="store_true", help="start a new match instead of resuming the last unfinished one")
    p.add_argument("--deck", metavar="NAME", help="the deck on the table, taught with `uno-table deck` (default from config)")
    from app.league.commands import add_auth_args, add_run_args

    add_run_args(p)
    add_auth_args(p)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("demo", help="the simulated table: simulated players, real vision, referee and dashboard")
    p.add_argument("--headless", action="store_true", help="no dashboard: play and print a report")
    p.add_argument("--rounds", type=int, default=None, help="rounds to play (default: 3 headless, endless with the dashboard)")
    p.add_argument("--seed", type=int, default=0, help="seed of the game and of the rendered table")
    p.add_argument("--preset", default="official", help="rules preset")
    p.add_argument("--players", type=int, default=4, help="number of seats (2-10)")
    p.add_argument("--rules", metavar="YAML", help="rules file on top of the preset (may name its own 'preset:')")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override one rule option, e.g. --set house.spin=true (repeatable)")
    p.add_argument("--json", action="store_true", help="print one JSON object (headless)")
    p.add_argument("--detector", choices=("onnx", "sim-truth"), default=None,
                   help="onnx: the shipped model reads the frames (default); sim-truth: a stand-in that reads the renderer's truth")
    p.add_argument("--fps", type=float, default=10.0, help="simulated camera frame rate")
    p.add_argument("--faces", default=None, metavar="render|real|DIR",
                   help="card faces on the simulated table: rendered (default), real photos "
                        "(shared/data/real-cards-mit) or a folder of single-card photos with labels.csv")
    p.add_argument("--size", default="1280x720", help="simulated camera frame size, WxH")
    p.add_argument("--host", default="127.0.0.1", help="dashboard address")
    p.add_argument("--port", type=port_number, default=8000, help="dashboard port (0: any free port, printed)")
    p.add_argument("--mock-gpio", action="store_true", default=True, help=argparse.SUPPRESS)
    from app.league.commands import add_demo_args

    add_demo_args(p)
    p.set_defaults(func=cmd_demo)

    from app import lock, matchfiles

    matchfiles.register(sub)  # uno-table salvage
    lock.register(sub)  # uno-table unlock


# ----------------------------------------------------------------------------- shared


def _vision_config(cfg, detector: str | None = None, source: str | None = None, deck: str | None = None):
    """The app config's vision section with the command line's choices on top; a config that
    names no camera gets the machine's own (the Pi camera on a Pi, else the first webcam)."""
    from vision.config import SimTruthDetectorConfig

    if deck is not None:  # validated again: the deck reaches the detector's config
        from table.errors import validation_problems
        from vision.config import VisionConfig

        try:
            cfg = VisionConfig.model_validate(cfg.model_dump(exclude_unset=True) | {"deck": deck})
        except ValueError as exc:
            raise ConfigError(f"--deck {deck!r}: " + (validation_problems(exc) if hasattr(exc, "errors") else str(exc))) from None

    if detector == "sim-truth":
        cfg = cfg.model_copy(update={"detector": SimTruthDetectorConfig()})
    if source is not None:
        from vision.sources import source_config_from_arg

        cfg = cfg.model_copy(update={"source": source_config_from_arg(source)})
    elif "source" not in cfg.model_fields_set:
        cfg = cfg.model_copy(update={"source": _default_camera()})
    return cfg


def _default_camera():
    """The Pi camera on a Pi, else the first USB webcam."""
    from vision import config as c

    try:
        model = Path("/proc/device-tree/model").read_text(errors="ignore")
    except OSError:
        model = ""
    if "Raspberry Pi" in model:
        return c.PiCameraSourceConfig()
    return c.DeviceSourceConfig(device=0)


def _pipeline(vision_cfg):
    """The vision pipeline with its detector loaded now: a missing or corrupt model file is a
    clear error at start, not a crash mid-game."""
    from vision.detectors import make_detector
    from vision.pipeline import VisionPipeline

    return VisionPipeline(vision_cfg, make_detector(vision_cfg.detector))


def _open_match(match_dir: Path, rules, names: list[str], new: bool, out=print):
    """(store, record, log) of the match to play: the current match (app/matchfiles.py) if it
    is not over, else a new one. A current match whose log cannot be read stops the start
    with MatchDamaged naming the file and what to do: never a silent switch of match."""
    from app.matchfiles import MatchStore, ensure_writable
    from table.referee import MATCH_OVER

    ensure_writable(match_dir)
    store = MatchStore(match_dir)
    try:
        opened = None if new else store.open_current()
        if opened is not None:
            record, log, state = opened
            if state.phase != MATCH_OVER:
                players = log.rules.match_config().players  # T2 at two tables: 8 names, 4 seats
                if len(record.players) != players:  # a log from before the index without names
                    record.players = [f"Seat {i}" for i in range(players)]
                out(f"Resuming the unfinished match {record.number} in {record.path} ({len(log)} logged inputs)")
                return store, record, log
            log.close()
        record, log = store.new_match(rules, names)
    except BaseException:
        store.close()
        raise
    out(f"New match {record.number}: {record.path}")
    return store, record, log


def _on_unlock(dash) -> None:
    """`uno-table unlock` on the console (SIGUSR1) lifts the dashboard's PIN lockout."""

    def lift(*_):
        dash.lift_pin_lockout()
        print("PIN lockout lifted from the console: the host can sign in again", file=sys.stderr)

    signal.signal(signal.SIGUSR1, lift)


def _join(thread: threading.Thread, what: str) -> None:
    """Wait for a thread to end, however slow the CPU: a frame being read (ONNX Runtime in
    C++) must finish before the interpreter exits, or the process aborts ("terminate called
    without an active exception")."""
    thread.join(2.0)
    if thread.is_alive():
        print(f"Waiting for {what} to finish", file=sys.stderr)
        thread.join()


class _Shutdown:
    """SIGTERM and Ctrl-C end the main loop; the parts are closed in order."""

    def __init__(self) -> None:
        self.event = threading.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: self.event.set())

    def wait(self) -> None:
        while not self.event.wait(0.5):
            pass


# ----------------------------------------------------------------------------- run


def cmd_run(args) -> int:
    from app.config import load_app_config
    from app.hub import TableHub
    from app.league.commands import _auth, league_overrides
    from table.paths import data_dir

    path = args.config
    if path is None and Path("uno-table.yaml").exists():
        path = Path("uno-table.yaml")
    league = league_overrides(args)
    config = load_app_config(path, league=_auth(args, league) if league else None)
    if config.league is not None and config.league.table is None:
        raise ConfigError("league: this table needs a name in the league: --table NAME (or league.table)")
    rules = config.rules_config()
    vision_cfg = _vision_config(config.vision, source=args.source, deck=args.deck)
    from vision.sources import check_source

    check_source(vision_cfg.source)  # a camera stack that cannot load: a clear stop, now
    pipeline = _pipeline(vision_cfg)
    mock = args.mock_gpio or config.gpio.mock

    from firmware_config.gpio import pin_factory_for
    from firmware_config.pinmap import load_pin_map

    factory = pin_factory_for(mock)  # no GPIO and no --mock-gpio: a clear stop, before anything starts
    pin_map = load_pin_map(args.pin_map or config.gpio.pin_map)

    from app.lock import DataDirLock
    from web_ui.launch import bind_dashboard

    host = args.host or config.dashboard.host
    port = args.port if args.port is not None else config.dashboard.port
    root = Path(args.data_dir or config.data_dir or data_dir())
    # One table per data dir, and the dashboard's address checked, before any match is opened.
    lock = DataDirLock(root / "matches", port=port).acquire()
    try:
        sock = bind_dashboard(host, port)
        port = sock.getsockname()[1]  # port 0: the one the system gave
        lock.update(port=port)
        try:
            store, record, log = _open_match(root / "matches", rules, config.players, args.new_match)
        except BaseException:
            sock.close()
            raise
        hub = TableHub(log, record.players, preset=config.preset, match_dir=root / "matches",
                       matches=store, seat_tokens=record.seat_tokens, ask=config.ask.model_dump())  # fmt: skip
        try:
            return _serve_table(
                hub, vision_cfg, factory, pin_map, mock, pipeline=pipeline, host=host, port=port,
                pin=config.dashboard.host_pin, sock=sock, threads=config.dashboard.threads,
                allowed_hosts=config.dashboard.allowed_hosts, league=config.league,
            )  # fmt: skip
        finally:
            store.close()
    finally:
        lock.release()


def _serve_table(hub, vision_cfg, factory, pin_map, mock, *, host, port, pin=None, driver=None, board=None,
                 pipeline=None, sock=None, threads=None, allowed_hosts=None, league=None) -> int:
    from firmware_config.feedback import TableFeedback
    from firmware_config.hardware import TableHardware
    from firmware_config.panel import DashboardPanel
    from vision.hub import FrameHub
    from vision.live import FrameBoard, LiveVision
    from vision.sources import make_source
    from web_ui.launch import start_dashboard

    shutdown = _Shutdown()
    hw = TableHardware(pin_map, factory)
    feedback = TableFeedback(hw)

    def on_gesture(item) -> None:
        hub.enqueue(item.to_json(), source="button")

    hw.on_gesture(on_gesture)

    def on_events(events, _snap) -> None:
        pattern = feedback.handle(events)
        if pattern is not None:
            hub.feed.publish("buzzer", {"pattern": pattern, "text": f"buzzer: {pattern}"})

    hub.subscribe(on_events)
    if mock:
        hub.panel = DashboardPanel(hw, hub.names)
    board = board or FrameBoard()
    hub.frames = board
    recorder = _attach_replay(hub, vision_cfg, pipeline)
    hub.start()
    frame_hub = vision = dash = worker = publisher = None
    try:
        if driver is None:
            frame_hub = FrameHub(make_source(vision_cfg.source), vision_cfg.retry,
                                 on_status=lambda s, e: hub.set_camera_status(s, e)).start()  # fmt: skip
            vision = LiveVision(
                frame_hub, vision_cfg, board=board, pipeline=pipeline,
                on_observation=lambda obs: hub.enqueue({"kind": "observation", "observation": obs}, source="camera"),
            ).start()  # fmt: skip
        from app.deck_service import DeckService

        decks = DeckService(vision.pipeline if vision is not None else pipeline)
        dash = start_dashboard(hub, host=host, port=port, pin=pin, sock=sock, threads=threads,
                               seat_tokens=hub.seat_tokens, allowed_hosts=allowed_hosts,
                               deck_service=decks)  # fmt: skip
        _on_unlock(dash)
        if league is not None:  # issue 17: this table's log goes to the league's broker too
            from app.league.commands import start_publisher

            publisher = start_publisher(hub, league, dash.url)
        if driver is not None:
            worker = threading.Thread(target=driver, args=(shutdown.event,), name="demo", daemon=True)
            worker.start()
        shutdown.wait()
    finally:
        print("Shutting down: closing the dashboard, camera, GPIO and the log", file=sys.stderr)
        shutdown.event.set()
        if worker is not None:  # first: the demo reads frames and sends inputs to the hub
            _join(worker, "the demo's frame")
        if dash is not None:
            dash.close()
        if publisher is not None:
            publisher.stop()
        if vision is not None:
            vision.stop()
        if frame_hub is not None:
            frame_hub.stop()
        if recorder is not None:
            recorder.close()
        hw.close()
        hub.close()
    return 0


def _attach_replay(hub, vision_cfg, pipeline):
    """Instant replay (vision/replay.py): the pipeline's frames kept in a ring buffer, and a
    clip behind every camera entry of the log, beside the match's log file. A full disk stops
    the clips (the game goes on) and the host is told on the dashboard."""
    if pipeline is None or not vision_cfg.replay.enabled:
        return None
    from vision.replay import ReplayRecorder

    def problem(message: str | None) -> None:
        hub.feed.publish("replay", {"status": "stopped" if message else "recording",
                                    "text": message or "clips are kept again"})  # fmt: skip

    recorder = ReplayRecorder(vision_cfg.replay, on_problem=problem)
    recorder.set_match(getattr(hub.log, "path", None))
    hub.replay = recorder
    pipeline.listeners.append(recorder.on_result)
    return recorder


# ----------------------------------------------------------------------------- demo


def _demo_hub(args, store=None):
    """The demo's table: in memory (headless), or a numbered match in `store` (the dashboard)."""
    from app.hub import TableHub
    from table.log import MemoryLog
    from table.rules import load_rules

    overrides = ([] if args.preset == "two-player" else [f"players={args.players}"]) + list(args.overrides)
    rules = load_rules(args.preset, path=args.rules, overrides=overrides or None)
    names = ["Ana", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jun"][: rules.players]
    if store is None:
        return TableHub(MemoryLog(rules), names, preset=args.preset)
    record, log = store.new_match(rules, names)
    return TableHub(log, record.players, preset=args.preset, match_dir=store.folder, matches=store,
                    seat_tokens=record.seat_tokens)  # fmt: skip


def cmd_demo(args) -> int:
    if args.tables:
        given = [f"--{k}" for k in ("detector", "faces") if getattr(args, k) is not None]
        if given:  # the league's tables play through the referee alone: say so, not ignore it
            raise ConfigError(f"{' and '.join(given)} cannot go with --tables: the league's simulated "
                              "tables play through the referee, with no camera to read")
        from app.league.commands import demo_tables

        return demo_tables(args)
    args.detector = args.detector or "onnx"
    args.faces = args.faces or "render"
    from app.demo import DemoDriver
    from vision.config import SimSourceConfig, VisionConfig
    from vision.live import FrameBoard, SimulatedCamera

    try:
        width, height = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        raise ConfigError(f"--size {args.size!r}: expected WIDTHxHEIGHT, like 1280x720") from None
    vision_cfg = _vision_config(VisionConfig(source=SimSourceConfig()), detector=args.detector)
    pipeline = _pipeline(vision_cfg)
    if args.headless:
        hub = _demo_hub(args)
        camera = SimulatedCamera(vision_cfg, seed=args.seed, width=width, height=height, fps=args.fps,
                                 pipeline=pipeline, faces=args.faces)
        report = DemoDriver(hub, camera, seed=args.seed).play(args.rounds or 3)
        out = report.to_json()
        out["ms_per_frame"] = round(sum(camera.ms) / len(camera.ms), 1) if camera.ms else None
        out["detector"] = args.detector
        if args.json:
            print(json.dumps(out))
        else:
            print(f"{out['rounds']} rounds, {out['plays']} plays, {out['frames']} frames "
                  f"({out['ms_per_frame']} ms/frame); referee matches truth: {out['referee_matches_truth']}")  # fmt: skip
            print(f"scores: table {out['scores_table']}  truth {out['scores_truth']}; "
                  f"penalties {out['penalties_table']}/{out['penalties_truth']}; host corrections {out['host_corrections']}")  # fmt: skip
            for m in out["mismatches"][:20]:
                print("  mismatch:", json.dumps(m))
        return 0

    from app.lock import DataDirLock
    from app.matchfiles import MatchStore
    from firmware_config.gpio import pin_factory_for
    from firmware_config.pinmap import load_pin_map
    from table.paths import data_dir
    from web_ui.launch import bind_dashboard

    match_dir = data_dir() / "demo"
    lock = DataDirLock(match_dir, port=args.port, what="demo").acquire()
    sock = bind_dashboard(args.host, args.port)
    args.port = sock.getsockname()[1]  # port 0: the one the system gave
    lock.update(port=args.port)
    store = MatchStore(match_dir)
    hub = _demo_hub(args, store)
    board = FrameBoard()
    camera = SimulatedCamera(vision_cfg, seed=args.seed, width=width, height=height, fps=args.fps,
                             board=board, realtime=True, pipeline=pipeline, faces=args.faces)  # fmt: skip

    def play(stop: threading.Event) -> None:
        from table.referee import MATCH_OVER

        rounds, seed = 0, args.seed
        buttons = GpioButtons(hub)
        driver = None
        while not stop.is_set() and (args.rounds is None or rounds < args.rounds):
            if driver is None or hub.state.phase == MATCH_OVER:
                if driver is not None:  # a match ended: the next one starts fresh
                    hub.submit({"kind": "new-match"}, source="host")
                    seed += 1
                driver = DemoDriver(hub, camera, buttons, seed=seed,
                                    on_frame=lambda: stop.is_set() and _stop_demo())  # fmt: skip
            try:
                driver.play(1)
            except _DemoStopped:
                return
            except UnoTableError as exc:
                print(f"demo: {exc}", file=sys.stderr)
                return
            rounds += 1
        print("Demo over: the dashboard stays up until Ctrl-C", file=sys.stderr)

    factory = pin_factory_for(True)
    try:
        return _serve_table(hub, vision_cfg, factory, load_pin_map(None), True,
                            host=args.host, port=args.port, driver=play, board=board, sock=sock,
                            pipeline=camera.pipeline)  # fmt: skip
    finally:
        store.close()
        lock.release()


class GpioButtons:
    """The demo's simulated players press the mock buttons through the virtual panel, so the
    presses run through gpiozero and the gesture timing like a finger's; each press waits
    until the referee has logged what it meant."""

    def __init__(self, hub, timeout: float = 4.0):
        self.hub, self.timeout = hub, timeout

    def _wait_logged(self, before: int) -> None:
        import time

        deadline = time.monotonic() + self.timeout
        while len(self.hub.log) <= before and time.monotonic() < deadline:
            time.sleep(0.02)

    def gesture(self, seat: int, gesture: str) -> None:
        before = len(self.hub.log)
        self.hub.press(f"seat:{seat}", gesture)
        self._wait_logged(before)

    def colour(self, colour: str) -> None:
        before = len(self.hub.log)
        self.hub.press(f"colour:{colour}", "press")
        self._wait_logged(before)


class _DemoStopped(Exception):
    pass


def _stop_demo():
    raise _DemoStopped()
