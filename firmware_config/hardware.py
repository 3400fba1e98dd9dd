"""`TableHardware`: every device at the table behind one object.

    with TableHardware(load_pin_map(), pin_factory_for(mock_gpio=True)) as hw:
        hw.on_gesture(queue.put)            # ButtonGesture and ColourPick, from any thread
        hw.show_turn(2); hw.show_colour("red"); hw.play("uno-heard")
        hw.virtual.double_press(1)          # mock pins only: the same gpiozero path as a hand

Inputs arrive on gpiozero's and the timers' threads: listeners should only hand them on (put
them on the app's input queue), never do slow work.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from gpiozero.pins.mock import MockFactory, MockPin

from firmware_config.buzzer import BuzzerPlayer, Wait
from firmware_config.clock import Clock, RealClock
from firmware_config.devices import ColourLight, ColourPad, SeatButton, SeatLights
from firmware_config.errors import HardwareError, UnknownColourError, UnknownSeatError
from firmware_config.gestures import HardwareInput
from firmware_config.patterns import PATTERN_NAMES, Pattern
from firmware_config.pinmap import COLOURS, PinMap

log = logging.getLogger(__name__)

Listener = Callable[[HardwareInput], None]


class TableHardware:
    """Owns the seat buttons, colour pad, buzzer, seat LEDs and RGB LED of one pin map."""

    def __init__(self, pin_map: PinMap, pin_factory, *, clock: Clock | None = None, wait: Wait | None = None):
        self.pin_map = pin_map
        self.pin_factory = pin_factory
        self.clock = clock or RealClock()
        self._listeners: list[Listener] = []
        self._listeners_lock = threading.Lock()
        self.buttons: dict[int, SeatButton] = {}
        self.colour_pad: ColourPad | None = None
        self.buzzer: BuzzerPlayer | None = None
        self.seat_lights: SeatLights | None = None
        self.colour_light: ColourLight | None = None
        self._closed = False
        timing = pin_map.timing
        try:
            for seat in pin_map.seat_numbers:
                self.buttons[seat] = SeatButton(
                    seat,
                    pin_map.seats[seat].button,
                    pin_factory,
                    self._emit,
                    self.clock,
                    hold_time=timing.hold_time,
                    double_press_window=timing.double_press_window,
                    bounce_time=timing.bounce_time,
                )
            if pin_map.colour_pad is not None:
                self.colour_pad = ColourPad(
                    pin_map.colour_pad.model_dump(), pin_factory, self._emit, self.clock,
                    bounce_time=timing.bounce_time,
                )
            if pin_map.buzzer is not None:
                self.buzzer = BuzzerPlayer(
                    pin_map.buzzer.kind, pin_map.buzzer.pin, pin_factory,
                    active_high=pin_map.buzzer.active_high, wait=wait,
                )
            if any(p.led is not None for p in pin_map.seats.values()):
                self.seat_lights = SeatLights({s: p.led for s, p in pin_map.seats.items()}, pin_factory)
            if pin_map.rgb_led is not None:
                rgb = pin_map.rgb_led
                self.colour_light = ColourLight(
                    rgb.red, rgb.green, rgb.blue, pin_factory, common_anode=rgb.common_anode, pwm=rgb.pwm
                )
        except Exception:
            self.close()
            raise
        self.virtual = VirtualPanel(self) if isinstance(pin_factory, MockFactory) else None

    # Inputs ---------------------------------------------------------------------------------

    def on_gesture(self, listener: Listener) -> Listener:
        """Call `listener(input)` for every ButtonGesture and ColourPick. Usable as a decorator."""
        with self._listeners_lock:
            self._listeners.append(listener)
        return listener

    def remove_listener(self, listener: Listener) -> None:
        with self._listeners_lock:
            self._listeners.remove(listener)

    def _emit(self, item: HardwareInput) -> None:
        with self._listeners_lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(item)
            except Exception:
                log.exception("hardware listener %r failed on %s", listener, item)

    # Outputs --------------------------------------------------------------------------------

    def show_turn(self, seat: int | None) -> None:
        """Light the seat whose turn it is (None: all off). A table without seat LEDs ignores it."""
        self._check_open()
        if seat is not None and seat not in self.buttons:
            raise UnknownSeatError(f"no seat {seat}; the pin map has seats {self.pin_map.seat_numbers}")
        if self.seat_lights is not None:
            self.seat_lights.show_turn(seat)

    def show_colour(self, colour: str | None) -> None:
        """Show the current colour on the RGB LED (None: off). Ignored without an RGB LED."""
        self._check_open()
        if colour is not None and colour not in COLOURS:
            raise UnknownColourError(f"{colour!r} is not a colour: use one of {', '.join(COLOURS)}")
        if self.colour_light is not None:
            self.colour_light.show_colour(colour)

    def play(self, pattern: str | Pattern) -> None:
        """Start a buzzer pattern (see PATTERN_NAMES) without waiting; it interrupts the one
        playing. A table without a buzzer checks the name and stays silent."""
        self._check_open()
        if isinstance(pattern, str):
            from firmware_config.patterns import get_pattern

            pattern = get_pattern(pattern)
        if self.buzzer is not None:
            self.buzzer.play(pattern)

    def stop_sound(self) -> None:
        if self.buzzer is not None:
            self.buzzer.stop()

    pattern_names = PATTERN_NAMES

    # Lifetime -------------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Silence, switch off and release every pin. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        parts = [self.buzzer, self.colour_light, self.seat_lights, self.colour_pad, *self.buttons.values()]
        for part in parts:
            if part is None:
                continue
            try:
                part.close()
            except Exception:
                log.exception("closing %r failed", part)

    def __enter__(self) -> TableHardware:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _check_open(self) -> None:
        if self._closed:
            raise HardwareError("the table hardware is closed")


class VirtualPanel:
    """Presses mock buttons by driving their mock pins, so a virtual press runs through the
    same gpiozero Button and gesture code as a finger. For the dashboard's virtual hardware
    panel, the demo's simulated players and tests.

    Timed gestures sleep on the hardware's clock: with a ManualClock they take no real time;
    with the real clock pass `background=True` to return at once."""

    TAP = 0.05  # seconds a virtual finger stays down

    def __init__(self, hardware: TableHardware):
        self._hw = hardware

    def seat_pin(self, seat: int) -> MockPin:
        button = self._hw.buttons.get(seat)
        if button is None:
            raise UnknownSeatError(f"no seat {seat}; the pin map has seats {self._hw.pin_map.seat_numbers}")
        return button.pin

    def colour_pin(self, colour: str) -> MockPin:
        pad = self._hw.colour_pad
        if pad is None:
            raise HardwareError("this pin map has no colour pad")
        if colour not in pad.buttons:
            raise UnknownColourError(f"{colour!r} is not a colour: use one of {', '.join(COLOURS)}")
        return pad.buttons[colour].pin

    # Low level: a finger down or up.
    def push(self, seat: int) -> None:
        self._hw._check_open()
        self.seat_pin(seat).drive_low()

    def let_go(self, seat: int) -> None:
        self._hw._check_open()
        self.seat_pin(seat).drive_high()

    # Gestures.
    def press(self, seat: int, *, background: bool = False) -> None:
        self._run(background, self._tap, seat)

    def double_press(self, seat: int, *, background: bool = False) -> None:
        gap = self._hw.pin_map.timing.double_press_window / 3
        self._run(background, self._double, seat, gap)

    def hold(self, seat: int, *, background: bool = False) -> None:
        seconds = self._hw.pin_map.timing.hold_time + self.TAP
        self._run(background, self._hold, seat, seconds)

    def pick_colour(self, colour: str) -> None:
        pin = self.colour_pin(colour)
        self._hw._check_open()
        pin.drive_low()
        pin.drive_high()

    def perform(self, action: dict, *, background: bool = True) -> None:
        """Do what the dashboard's virtual panel asks, in the referee's input JSON shape:
        `{"kind": "gesture", "seat": 2, "gesture": "double"}` or `{"kind": "colour", "colour": "red"}`."""
        kind = action.get("kind")
        if kind == "gesture":
            gestures = {"press": self.press, "double": self.double_press, "hold": self.hold}
            gesture = action.get("gesture", "press")
            if gesture not in gestures:
                raise ValueError(f"gesture must be one of {', '.join(gestures)}, not {gesture!r}")
            seat = action.get("seat")
            if not isinstance(seat, int) or isinstance(seat, bool):
                raise UnknownSeatError(f"a virtual gesture needs an integer seat, not {seat!r}")
            gestures[gesture](seat, background=background)
        elif kind == "colour":
            self.pick_colour(action.get("colour"))
        else:
            raise ValueError(f"virtual action kind must be 'gesture' or 'colour', not {kind!r}")

    def _tap(self, seat: int) -> None:
        self.push(seat)
        self._hw.clock.sleep(self.TAP)
        self.let_go(seat)

    def _double(self, seat: int, gap: float) -> None:
        self._tap(seat)
        self._hw.clock.sleep(gap)
        self._tap(seat)

    def _hold(self, seat: int, seconds: float) -> None:
        self.push(seat)
        self._hw.clock.sleep(seconds)
        self.let_go(seat)

    def _run(self, background: bool, fn, *args) -> None:
        self.seat_pin(args[0])  # check the seat before going to the background
        if background:
            threading.Thread(target=fn, args=args, name="virtual-press", daemon=True).start()
        else:
            fn(*args)
