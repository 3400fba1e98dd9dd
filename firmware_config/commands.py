"""Subcommands from the hardware folder: `doctor`, `wiring`, `patterns`, `hwtest`.

Imports stay inside the handlers so `uno-table --help` does not load gpiozero or cv2.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def register(sub) -> None:
    p = sub.add_parser(
        "doctor",
        help="check camera, GPIO, pin map, models, data dir, database and port",
        description="Check that this machine can run the table. Exit code 1 when something "
        "required is missing (FAIL); WARN lines are worth reading but do not stop a run.",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object instead of lines")
    p.add_argument("--pin-map", type=Path, help="pin map YAML (default: firmware_config/pinmap.yaml)")
    p.add_argument("--data-dir", type=Path, help="data dir (default: $UNO_TABLE_DATA or ./data)")
    p.add_argument(
        "--models-dir", type=Path, action="append", dest="model_dirs",
        help="where to look for .onnx models (repeatable; default: models/ and <data>/models)",
    )  # fmt: skip
    p.add_argument("--port", type=int, default=8000, help="dashboard port to check (default 8000)")
    p.add_argument("--host", default="0.0.0.0", help="dashboard address to check (default 0.0.0.0)")
    p.add_argument("--mock-gpio", action="store_true", help="mock pins are fine (as `run --mock-gpio`)")
    p.add_argument("--require-camera", action="store_true", help="a missing camera is a FAIL")
    p.add_argument("--require-gpio", action="store_true", help="missing GPIO is a FAIL")
    p.add_argument("--camera-timeout", type=float, default=10.0, help="seconds to wait for the camera probe")
    p.set_defaults(func=_doctor)

    p = sub.add_parser("wiring", help="print the wiring table (Markdown) of a pin map")
    p.add_argument("--pin-map", type=Path, help="pin map YAML (default: firmware_config/pinmap.yaml)")
    p.set_defaults(func=_wiring)

    p = sub.add_parser("patterns", help="list the buzzer patterns")
    p.add_argument("--json", action="store_true", help="print them as the browser plays them")
    p.add_argument("--kind", choices=("passive", "active"), default="passive", help="buzzer kind")
    p.set_defaults(func=_patterns)

    p = sub.add_parser(
        "hwtest",
        help="try the table's hardware: LEDs, colours, every buzzer pattern, then print presses",
        description="Lights each seat LED, shows each colour, plays each pattern, then prints "
        "every gesture as a JSON line until Ctrl-C (or --seconds).",
    )
    p.add_argument("--pin-map", type=Path, help="pin map YAML (default: firmware_config/pinmap.yaml)")
    p.add_argument("--mock-gpio", action="store_true", help="use mock pins (no hardware)")
    p.add_argument("--seconds", type=float, default=None, help="stop listening after this long")
    p.add_argument("--quiet", action="store_true", help="skip the buzzer patterns")
    p.add_argument("--step", type=float, default=0.4, help="seconds each LED and colour stays on")
    p.set_defaults(func=_hwtest)


def _doctor(args: argparse.Namespace) -> int:
    from firmware_config.doctor import (
        DoctorOptions,
        exit_code,
        report_json,
        report_text,
        run_doctor,
    )

    checks = run_doctor(
        DoctorOptions(
            pin_map=args.pin_map,
            data_dir=args.data_dir,
            model_dirs=args.model_dirs,
            port=args.port,
            host=args.host,
            mock_gpio=args.mock_gpio,
            require_camera=args.require_camera,
            require_gpio=args.require_gpio,
            camera_timeout=args.camera_timeout,
        )
    )
    print(json.dumps(report_json(checks), indent=2) if args.json else report_text(checks))
    return exit_code(checks)


def _wiring(args: argparse.Namespace) -> int:
    from firmware_config.pinmap import load_pin_map, wiring_table

    pin_map = load_pin_map(args.pin_map)
    print(wiring_table(pin_map), end="")
    for warning in pin_map.warnings:
        print(f"warning: {warning}")
    return 0


def _patterns(args: argparse.Namespace) -> int:
    from firmware_config.patterns import PATTERNS, browser_patterns

    if args.json:
        print(json.dumps(browser_patterns(args.kind), indent=2))
        return 0
    for name, pattern in PATTERNS.items():
        print(f"{name:<15} {pattern.duration(args.kind):4.2f} s  {pattern.description}")
    return 0


def _hwtest(args: argparse.Namespace) -> int:
    import time

    from firmware_config.gpio import pin_factory_for
    from firmware_config.hardware import TableHardware
    from firmware_config.patterns import PATTERN_NAMES, PATTERNS
    from firmware_config.pinmap import COLOURS, load_pin_map

    pin_map = load_pin_map(args.pin_map)
    factory = pin_factory_for(args.mock_gpio)
    with TableHardware(pin_map, factory) as hw:
        hw.on_gesture(lambda g: print(json.dumps(g.to_json()), flush=True))
        if hw.virtual is not None:
            print("mock pins: nothing will light or sound; presses can only be virtual", flush=True)
        for seat in pin_map.seat_numbers:
            print(f"seat {seat} LED", flush=True)
            hw.show_turn(seat)
            time.sleep(args.step)
        hw.show_turn(None)
        for colour in COLOURS:
            print(f"RGB LED {colour}", flush=True)
            hw.show_colour(colour)
            time.sleep(args.step)
        hw.show_colour(None)
        if not args.quiet and hw.buzzer is not None:
            for name in PATTERN_NAMES:
                print(f"buzzer {name}: {PATTERNS[name].description}", flush=True)
                hw.buzzer.play(name, wait=True)
                time.sleep(args.step)
        print("press buttons (Ctrl-C to stop)", flush=True)
        deadline = None if args.seconds is None else time.monotonic() + args.seconds
        try:
            while deadline is None or time.monotonic() < deadline:
                time.sleep(0.1)
        except KeyboardInterrupt:
            pass
    return 0
