"""The table's gpiozero devices: seat buttons, the colour pad, seat LEDs and the RGB LED.

Every device takes its pin factory as an argument, so the same code runs on a Pi's real pins
and on gpiozero's MockFactory in tests and on laptops.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from gpiozero import LED, RGBLED, DigitalInputDevice

from firmware_config.clock import Clock
from firmware_config.errors import UnknownColourError, UnknownSeatError
from firmware_config.gestures import ButtonGesture, ColourPick, GestureDetector
from firmware_config.pinmap import COLOURS

log = logging.getLogger(__name__)


def _button(pin: int, bounce_time: float, pin_factory) -> DigitalInputDevice:
    """A button between the pin and GND, on the internal pull-up: pressed = low = active."""
    return DigitalInputDevice(
        pin, pull_up=True, bounce_time=bounce_time if bounce_time > 0 else None, pin_factory=pin_factory
    )


class SeatButton:
    """One seat's button, reporting press, double and hold through `emit`."""

    def __init__(
        self,
        seat: int,
        pin: int,
        pin_factory,
        emit: Callable[[ButtonGesture], None],
        clock: Clock,
        *,
        hold_time: float = 1.0,
        double_press_window: float = 0.35,
        bounce_time: float = 0.02,
    ):
        self.seat = seat
        self.detector = GestureDetector(
            seat, emit, clock, hold_time=hold_time, double_press_window=double_press_window
        )
        # Holds are timed by the detector on the injected clock, so only edges are needed from
        # gpiozero: a DigitalInputDevice is a Button without Button's real-time hold thread
        # (which also costs ~0.1 s to stop on close).
        self.button = _button(pin, bounce_time, pin_factory)
        self.button.when_activated = self.detector.pressed
        self.button.when_deactivated = self.detector.released

    @property
    def pin(self):
        return self.button.pin

    @property
    def is_pressed(self) -> bool:
        return self.button.is_active

    @property
    def hold_time(self) -> float:
        return self.detector.hold_time

    def close(self) -> None:
        self.detector.close()
        self.button.close()


class ColourPad:
    """Four buttons that each name a colour the moment they go down."""

    def __init__(
        self,
        pins: dict[str, int],
        pin_factory,
        emit: Callable[[ColourPick], None],
        clock: Clock,
        *,
        bounce_time: float = 0.02,
    ):
        self._emit = emit
        self._clock = clock
        self.buttons: dict[str, DigitalInputDevice] = {}
        try:
            for colour in COLOURS:
                button = _button(pins[colour], bounce_time, pin_factory)
                button.when_activated = self._handler(colour)
                self.buttons[colour] = button
        except Exception:
            self.close()
            raise

    def _handler(self, colour: str) -> Callable[[], None]:
        def pressed() -> None:
            pick = ColourPick(colour, self._clock.now())
            try:
                self._emit(pick)
            except Exception:  # a listener's bug must not kill gpiozero's event thread
                log.exception("colour listener failed on %s", pick)

        return pressed

    def close(self) -> None:
        for button in self.buttons.values():
            button.close()


class SeatLights:
    """One LED per seat (seats without one are skipped); the seat whose turn it is is lit."""

    def __init__(self, pins: dict[int, int | None], pin_factory):
        self.seats = sorted(pins)
        self.leds: dict[int, LED] = {}
        self.turn: int | None = None
        try:
            for seat, pin in pins.items():
                if pin is not None:
                    self.leds[seat] = LED(pin, pin_factory=pin_factory)
        except Exception:
            self.close()
            raise

    def show_turn(self, seat: int | None) -> None:
        """Light `seat`'s LED only; None turns them all off."""
        if seat is not None and seat not in self.seats:
            raise UnknownSeatError(f"no seat {seat}; the pin map has seats {self.seats}")
        for number, led in self.leds.items():
            led.value = number == seat
        self.turn = seat

    def close(self) -> None:
        for led in self.leds.values():
            led.close()


# Colour mixes for the RGB LED. Yellow is red plus some green: full green reads lime.
_PWM_MIX = {"red": (1, 0, 0), "yellow": (1, 0.45, 0), "green": (0, 1, 0), "blue": (0, 0, 1)}
_ON_OFF_MIX = {"red": (1, 0, 0), "yellow": (1, 1, 0), "green": (0, 1, 0), "blue": (0, 0, 1)}


class ColourLight:
    """An RGB LED showing the current colour (or off)."""

    def __init__(
        self, red: int, green: int, blue: int, pin_factory, *, common_anode: bool = False, pwm: bool = True
    ):
        self.device = RGBLED(
            red, green, blue, active_high=not common_anode, pwm=pwm, pin_factory=pin_factory
        )
        self._mix = _PWM_MIX if pwm else _ON_OFF_MIX
        self.colour: str | None = None

    def show_colour(self, colour: str | None) -> None:
        """Show red, yellow, green or blue; None turns the LED off."""
        if colour is None:
            self.device.off()
        elif colour in self._mix:
            self.device.value = self._mix[colour]
        else:
            raise UnknownColourError(f"{colour!r} is not a colour: use one of {', '.join(COLOURS)}")
        self.colour = colour

    def close(self) -> None:
        self.device.close()
