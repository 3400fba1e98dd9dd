"""TableHardware end to end on MockFactory: virtual presses through the real gpiozero path,
outputs on the pin map's pins, clean close, and the --mock-gpio policy."""

import queue

import pytest
from gpiozero import LED
from gpiozero.exc import GPIOPinInUse
from gpiozero.pins.mock import MockFactory, MockPWMPin

from firmware_config.clock import ManualClock, RealClock
from firmware_config.errors import (
    GPIOUnavailableError,
    HardwareError,
    UnknownColourError,
    UnknownSeatError,
)
from firmware_config.gestures import ButtonGesture, ColourPick
from firmware_config.gpio import gpio_chips, pin_factory_for
from firmware_config.hardware import TableHardware
from firmware_config.pinmap import EXAMPLE_PIN_MAPS, load_pin_map, parse_pin_map
from table.errors import UnoTableError


@pytest.fixture
def factory():
    f = MockFactory(pin_class=MockPWMPin)
    yield f
    f.reset()


@pytest.fixture
def clock():
    return ManualClock(start=10.0)


@pytest.fixture
def pin_map():
    return load_pin_map()


@pytest.fixture
def hw(pin_map, factory, clock):
    hardware = TableHardware(pin_map, factory, clock=clock, wait=lambda stop, s: False)
    got = []
    hardware.on_gesture(got.append)
    hardware.got = got
    yield hardware
    hardware.close()


def test_virtual_presses_become_gestures(hw, clock):
    t_press = clock.now()
    hw.virtual.press(1)
    clock.advance(1)
    t_double = clock.now()
    hw.virtual.double_press(3)
    clock.advance(1)
    t_hold = clock.now()
    hw.virtual.hold(0)
    clock.advance(1)
    t_colour = clock.now()
    hw.virtual.pick_colour("blue")
    assert hw.got == [
        ButtonGesture(1, "press", t_press),
        ButtonGesture(3, "double", t_double),
        ButtonGesture(0, "hold", t_hold),
        ColourPick("blue", t_colour),
    ]
    assert [g.to_json()["kind"] for g in hw.got] == ["gesture", "gesture", "gesture", "colour"]


def test_low_level_push_and_let_go_drive_the_mock_pin(hw, factory, pin_map, clock):
    pin = factory.pin(pin_map.seats[2].button)
    hw.virtual.push(2)
    assert pin.state is False and hw.buttons[2].is_pressed
    hw.virtual.let_go(2)
    assert pin.state is True
    clock.advance(1)
    assert hw.got == [ButtonGesture(2, "press", 10.0)]


def test_bad_virtual_targets(hw):
    with pytest.raises(UnknownSeatError, match="no seat 9"):
        hw.virtual.press(9)
    with pytest.raises(UnknownColourError):
        hw.virtual.pick_colour("pink")


def test_turn_and_colour_follow_on_the_pin_maps_pins(hw, factory, pin_map):
    hw.show_turn(1)
    lit = [s for s, p in pin_map.seats.items() if factory.pin(p.led).state]
    assert lit == [1]
    hw.show_turn(3)
    assert [s for s, p in pin_map.seats.items() if factory.pin(p.led).state] == [3]
    hw.show_colour("green")
    rgb = pin_map.rgb_led
    assert [factory.pin(p).state for p in (rgb.red, rgb.green, rgb.blue)] == [0, 1, 0]
    hw.show_colour("red")
    assert [factory.pin(p).state for p in (rgb.red, rgb.green, rgb.blue)] == [1, 0, 0]
    with pytest.raises(UnknownSeatError):
        hw.show_turn(4)
    with pytest.raises(UnknownColourError):
        hw.show_colour("wild")


def test_play_by_name_sounds_the_buzzer(hw, factory, pin_map):
    hw.play("round-over")
    assert hw.buzzer.wait_done(2)
    pin = factory.pin(pin_map.buzzer.pin)
    assert any(state.state == 0.5 for state in pin.states)  # it sounded
    assert pin.frequency is None  # and stopped
    with pytest.raises(KeyError):
        hw.play("fanfare-typo")


def test_close_releases_every_pin(pin_map, factory, clock):
    with TableHardware(pin_map, factory, clock=clock) as hw:
        hw.show_turn(0)
        hw.show_colour("yellow")
    assert hw.closed
    hw.close()  # twice is fine
    for use in pin_map.pin_uses():
        LED(use.pin, pin_factory=factory).close()  # would raise GPIOPinInUse if still held
    with pytest.raises(HardwareError, match="closed"):
        hw.show_turn(1)
    with pytest.raises(HardwareError):
        hw.virtual.press(0)


def test_close_switches_outputs_off(pin_map, factory, clock):
    hw = TableHardware(pin_map, factory, clock=clock)
    hw.show_turn(0)
    hw.show_colour("red")
    hw.close()
    for use in pin_map.pin_uses():
        if use.path[0] in ("seats",) and use.path[-1] == "led" or use.path[0] == "rgb_led":
            assert factory.pin(use.pin).state == 0, use.part


def test_failed_start_releases_what_it_took(pin_map, factory, clock):
    blocker = LED(pin_map.buzzer.pin, pin_factory=factory)  # someone else holds the buzzer pin
    with pytest.raises(GPIOPinInUse):
        TableHardware(pin_map, factory, clock=clock)
    blocker.close()
    with TableHardware(pin_map, factory, clock=clock):  # the seat buttons were given back
        pass


@pytest.mark.parametrize("seats", sorted(EXAMPLE_PIN_MAPS))
def test_every_example_pin_map_starts(seats, factory, clock):
    pin_map = load_pin_map(EXAMPLE_PIN_MAPS[seats])
    with TableHardware(pin_map, factory, clock=clock, wait=lambda s, t: False) as hw:
        got = []
        hw.on_gesture(got.append)
        hw.virtual.press(seats - 1)
        clock.advance(1)
        hw.play("uno-heard")
        hw.show_turn(seats - 1)
        hw.show_colour("blue")
        assert got == [ButtonGesture(seats - 1, "press", 10.0)]


def test_minimal_table_without_optional_parts(factory, clock):
    pin_map = parse_pin_map("seats: {0: {button: 17}, 1: {button: 27}}\ncolour_pad: null\nbuzzer: null\n")
    with TableHardware(pin_map, factory, clock=clock) as hw:
        hw.show_turn(1)
        hw.show_colour("red")
        hw.play("penalty")  # silent, but the name is still checked
        with pytest.raises(KeyError):
            hw.play("nope")
        with pytest.raises(HardwareError, match="no colour pad"):
            hw.virtual.pick_colour("red")


def test_real_clock_gestures_arrive_from_background_threads(factory):
    pin_map = parse_pin_map(
        "seats: {0: {button: 17}, 1: {button: 27}}\ncolour_pad: null\nbuzzer: null\n"
        "timing: {hold_time: 0.3, double_press_window: 0.1}\n"
    )
    inbox = queue.Queue()
    with TableHardware(pin_map, factory, clock=RealClock()) as hw:
        hw.on_gesture(inbox.put)
        hw.virtual.press(1, background=True)
        gesture = inbox.get(timeout=3)
        assert (gesture.seat, gesture.gesture) == (1, "press")
        hw.virtual.hold(0)
        gesture = inbox.get(timeout=3)
        assert (gesture.seat, gesture.gesture) == (0, "hold")


def test_mock_gpio_gives_pwm_capable_mock_pins():
    factory = pin_factory_for(mock_gpio=True)
    try:
        assert isinstance(factory, MockFactory) and factory.pin_class is MockPWMPin
    finally:
        factory.close()


@pytest.mark.skipif(bool(gpio_chips()), reason="this machine has GPIO")
def test_without_gpio_run_stops_and_says_why(monkeypatch):
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    with pytest.raises(GPIOUnavailableError) as info:
        pin_factory_for(mock_gpio=False)
    message = str(info.value)
    assert "no GPIO" in message and "--mock-gpio" in message and "lgpio" in message
    assert isinstance(info.value, UnoTableError) and isinstance(info.value, RuntimeError)


def test_gpiozero_env_mock_is_an_explicit_request(monkeypatch):
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    factory = pin_factory_for(mock_gpio=False)
    try:
        assert isinstance(factory, MockFactory)
    finally:
        factory.close()


def test_hwtest_command_runs_on_mock_pins(capsys):
    from app.cli import main

    assert main(["hwtest", "--mock-gpio", "--seconds", "0", "--quiet", "--step", "0"]) == 0
    out = capsys.readouterr().out
    assert "seat 3 LED" in out and "RGB LED blue" in out and "press buttons" in out
