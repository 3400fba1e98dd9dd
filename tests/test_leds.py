"""Seat LEDs follow the turn; the RGB LED shows the current colour."""

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from firmware_config.devices import ColourLight, SeatLights
from firmware_config.errors import UnknownColourError, UnknownSeatError


@pytest.fixture
def factory():
    f = MockFactory(pin_class=MockPWMPin)
    yield f
    f.reset()


def test_seat_leds_light_only_the_seat_whose_turn_it_is(factory):
    pins = {0: 24, 1: 25, 2: 5, 3: 6}
    lights = SeatLights(pins, factory)
    try:
        def lit():
            return [seat for seat, pin in pins.items() if factory.pin(pin).state]

        assert lit() == []
        lights.show_turn(2)
        assert lit() == [2]
        lights.show_turn(3)
        assert lit() == [3]
        lights.show_turn(0)
        assert lit() == [0] and lights.turn == 0
        lights.show_turn(None)
        assert lit() == []
        with pytest.raises(UnknownSeatError, match="no seat 7"):
            lights.show_turn(7)
    finally:
        lights.close()


def test_seats_without_led_are_skipped(factory):
    lights = SeatLights({0: 24, 1: None}, factory)
    try:
        lights.show_turn(1)
        assert factory.pin(24).state == 0
        lights.show_turn(0)
        assert factory.pin(24).state == 1
    finally:
        lights.close()


def rgb(factory):
    return tuple(round(float(factory.pin(p).state), 2) for p in (16, 20, 21))


def test_rgb_led_shows_the_colour(factory):
    light = ColourLight(16, 20, 21, factory)
    try:
        assert rgb(factory) == (0, 0, 0)
        expected = {"red": (1, 0, 0), "yellow": (1, 0.45, 0), "green": (0, 1, 0), "blue": (0, 0, 1)}
        for colour, value in expected.items():
            light.show_colour(colour)
            assert rgb(factory) == value, colour
            assert light.colour == colour
        light.show_colour(None)
        assert rgb(factory) == (0, 0, 0)
        with pytest.raises(UnknownColourError, match="purple"):
            light.show_colour("purple")
    finally:
        light.close()


def test_common_anode_rgb_led_is_inverted(factory):
    light = ColourLight(16, 20, 21, factory, common_anode=True)
    try:
        light.show_colour("blue")
        assert rgb(factory) == (1, 1, 0)  # low = lit on a common-anode LED
        light.show_colour(None)
        assert rgb(factory) == (1, 1, 1)
    finally:
        light.close()


def test_on_off_rgb_led_works_without_pwm():
    factory = MockFactory()  # plain MockPin: no PWM at all
    light = ColourLight(16, 20, 21, factory, pwm=False)
    try:
        light.show_colour("yellow")
        assert tuple(bool(factory.pin(p).state) for p in (16, 20, 21)) == (True, True, False)
    finally:
        light.close()
        factory.reset()
