"""Seat buttons and the colour pad on gpiozero's MockFactory: gestures with controlled times."""

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from firmware_config.clock import ManualClock
from firmware_config.devices import ColourPad, SeatButton
from firmware_config.gestures import ButtonGesture, ColourPick
from table.inputs import NameColour, SeatGesture, parse_input


@pytest.fixture
def factory():
    f = MockFactory(pin_class=MockPWMPin)
    yield f
    f.reset()


@pytest.fixture
def clock():
    return ManualClock(start=100.0)


@pytest.fixture
def seat(factory, clock):
    got = []
    button = SeatButton(2, 17, factory, got.append, clock, hold_time=1.0, double_press_window=0.3)
    button.got = got
    yield button
    button.close()


def tap(pin, clock, down=0.1):
    pin.drive_low()
    clock.advance(down)
    pin.drive_high()


def test_press_is_reported_after_the_double_press_window(seat, clock, factory):
    pin = factory.pin(17)
    tap(pin, clock)
    assert seat.got == []  # could still become a double
    clock.advance(0.29)
    assert seat.got == []
    clock.advance(0.02)
    assert seat.got == [ButtonGesture(2, "press", 100.0)]
    clock.advance(5)
    assert len(seat.got) == 1


def test_button_is_active_low_with_pull_up(seat, factory):
    pin = factory.pin(17)
    assert pin.pull == "up" and pin.state is True and not seat.is_pressed
    pin.drive_low()
    assert seat.is_pressed


def test_double_press_within_window(seat, clock, factory):
    pin = factory.pin(17)
    tap(pin, clock)
    clock.advance(0.25)
    pin.drive_low()  # second press 0.25 s after the release
    assert seat.got == [ButtonGesture(2, "double", 100.0)]
    clock.advance(2.0)  # held long after: no hold, no press
    pin.drive_high()
    clock.advance(1.0)
    assert seat.got == [ButtonGesture(2, "double", 100.0)]


def test_two_presses_outside_window_are_two_presses(seat, clock, factory):
    pin = factory.pin(17)
    tap(pin, clock)
    clock.advance(0.35)
    tap(pin, clock)
    clock.advance(0.35)
    assert [g.gesture for g in seat.got] == ["press", "press"]
    assert [g.at for g in seat.got] == [100.0, pytest.approx(100.45)]


def test_hold_fires_at_hold_time_while_still_down(seat, clock, factory):
    pin = factory.pin(17)
    pin.drive_low()
    clock.advance(0.99)
    assert seat.got == []
    clock.advance(0.02)
    assert seat.got == [ButtonGesture(2, "hold", 100.0)]
    pin.drive_high()
    clock.advance(1.0)
    assert len(seat.got) == 1  # the release after a hold adds nothing


def test_hold_time_is_configurable(factory, clock):
    got = []
    button = SeatButton(0, 22, factory, got.append, clock, hold_time=2.5, double_press_window=0.3)
    try:
        assert button.hold_time == 2.5
        pin = factory.pin(22)
        pin.drive_low()
        clock.advance(2.0)
        pin.drive_high()
        assert got == []  # 2 s is not a hold here...
        clock.advance(0.3)
        assert [g.gesture for g in got] == ["press"]  # ...it is a (long) press
        pin.drive_low()
        clock.advance(2.5)
        assert [g.gesture for g in got] == ["press", "hold"]
    finally:
        button.close()


def test_triple_press_is_a_double_then_a_press(seat, clock, factory):
    pin = factory.pin(17)
    tap(pin, clock)
    clock.advance(0.1)
    tap(pin, clock)
    clock.advance(0.1)
    tap(pin, clock)
    clock.advance(0.5)
    assert [g.gesture for g in seat.got] == ["double", "press"]


def test_tap_then_hold_is_a_double(seat, clock, factory):
    pin = factory.pin(17)
    tap(pin, clock)
    clock.advance(0.1)
    pin.drive_low()
    clock.advance(1.5)
    pin.drive_high()
    assert [g.gesture for g in seat.got] == ["double"]


def test_gesture_json_is_the_referees_gesture_input(seat, clock, factory):
    tap(factory.pin(17), clock)
    clock.advance(0.5)
    gesture = seat.got[0]
    data = gesture.to_json()
    assert data == {"kind": "gesture", "seat": 2, "gesture": "press", "at": 100.0}
    parsed = parse_input(data)
    assert isinstance(parsed, SeatGesture)
    assert (parsed.seat, parsed.gesture, parsed.at) == (2, "press", 100.0)
    assert gesture.to_input() == parsed


def test_a_failing_listener_does_not_break_the_button(factory, clock):
    calls = []

    def listener(g):
        calls.append(g)
        raise RuntimeError("listener bug")

    button = SeatButton(1, 5, factory, listener, clock, hold_time=1.0, double_press_window=0.3)
    try:
        pin = factory.pin(5)
        tap(pin, clock)
        clock.advance(0.4)
        tap(pin, clock)
        clock.advance(0.4)
        assert [g.gesture for g in calls] == ["press", "press"]
    finally:
        button.close()


def test_colour_pad_names_the_colour_on_press(factory, clock):
    got = []
    pad = ColourPad({"red": 12, "yellow": 13, "green": 19, "blue": 26}, factory, got.append, clock)
    try:
        factory.pin(19).drive_low()
        assert got == [ColourPick("green", 100.0)]
        factory.pin(19).drive_high()
        clock.advance(1)
        factory.pin(12).drive_low()
        assert got[-1] == ColourPick("red", 101.0)
        assert len(got) == 2
        data = got[0].to_json()
        assert data == {"kind": "colour", "colour": "green", "source": "colour_pad"}
        parsed = parse_input(data)
        assert isinstance(parsed, NameColour) and parsed.colour == "green"
    finally:
        pad.close()
