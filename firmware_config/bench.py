"""Timing figures of the hardware layer on mock pins with real threads and the real clock:

    python -m firmware_config.bench [--runs 20] [--json]

- buzzer: how far each step's pin change lands from where the pattern puts it (jitter of the
  background player), over every pattern;
- gestures: delay from the finger leaving the button to the press being reported (should be
  the double-press window plus timer latency), and hold report delay past hold_time.
"""

from __future__ import annotations

import argparse
import json
import queue
import statistics
import time

from firmware_config.clock import RealClock
from firmware_config.gpio import mock_pin_factory
from firmware_config.hardware import TableHardware
from firmware_config.patterns import PATTERN_NAMES, PATTERNS
from firmware_config.pinmap import load_pin_map


def _summary(values_ms: list[float]) -> dict:
    ordered = sorted(values_ms)
    return {
        "n": len(ordered),
        "median_ms": round(statistics.median(ordered), 2),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2),
        "max_ms": round(ordered[-1], 2),
    }


def bench_buzzer(hw: TableHardware, factory) -> dict:
    pin = factory.pin(hw.pin_map.buzzer.pin)
    errors: list[float] = []
    for name in PATTERN_NAMES:
        pin.clear_states()
        start = pin._last_change
        hw.buzzer.play(name, wait=True)
        # Expected change times: cumulative step starts where the sound changes.
        expected, t, previous = [], 0.0, None
        for freq, seconds in PATTERNS[name].steps(hw.buzzer.kind):
            level = 0.5 if freq else 0.0
            if level != previous:
                expected.append(t)
            previous, t = level, t + seconds
        expected.append(t)  # the final silence
        actual, clock = [], start
        for state in pin.states[1:]:
            clock += state.timestamp
            actual.append(clock - start)
        # Same-frequency neighbours (a note, then the same note) change no pin state.
        for want, got in zip(expected, actual, strict=False):
            errors.append(abs(got - want) * 1000)
    return _summary(errors)


def bench_gestures(hw: TableHardware, runs: int) -> dict:
    inbox: queue.Queue = queue.Queue()
    hw.on_gesture(inbox.put)
    window = hw.pin_map.timing.double_press_window
    hold = hw.pin_map.timing.hold_time
    press_delay, hold_delay = [], []
    for i in range(runs):
        seat = i % len(hw.buttons)
        hw.virtual.push(seat)
        time.sleep(0.03)
        hw.virtual.let_go(seat)
        released = time.monotonic()
        inbox.get(timeout=5)
        press_delay.append((time.monotonic() - released - window) * 1000)
        hw.virtual.push(seat)
        pushed = time.monotonic()
        inbox.get(timeout=5)
        hold_delay.append((time.monotonic() - pushed - hold) * 1000)
        hw.virtual.let_go(seat)
    return {"press_report_after_window": _summary(press_delay), "hold_report_after_hold_time": _summary(hold_delay)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10, help="gesture runs (each takes about hold_time)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    factory = mock_pin_factory()
    with TableHardware(load_pin_map(), factory, clock=RealClock()) as hw:
        result = {"buzzer_step_error": bench_buzzer(hw, factory), **bench_gestures(hw, args.runs)}
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for name, figures in result.items():
            print(f"{name:<30} " + "  ".join(f"{k} {v}" for k, v in figures.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
