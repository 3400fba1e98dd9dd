"""Buzzer patterns on mock pins: the PWM frequency/value sequence of each tune, the on/off
rhythm of an active buzzer, timing on real threads, and interruption."""

import threading

import pytest
from gpiozero import TonalBuzzer
from gpiozero.pins.mock import MockFactory, MockPWMPin

from firmware_config.buzzer import MID_TONE, OCTAVES, BuzzerPlayer
from firmware_config.errors import UnknownPatternError
from firmware_config.patterns import (
    ACTIVE_BUZZER_HZ,
    PATTERN_NAMES,
    PATTERNS,
    Pattern,
    browser_pattern,
    browser_patterns,
    note_frequency,
)
from table.errors import UnoTableError

REQUIRED = {
    "illegal-play", "penalty", "uno-heard", "uno-caught",
    "challenge-won", "challenge-lost", "round-over", "turn-reminder",
}  # fmt: skip


@pytest.fixture
def factory():
    f = MockFactory(pin_class=MockPWMPin)
    yield f
    f.reset()


class Recorder:
    """A fake wait: records what the pin was doing at each step and returns at once."""

    def __init__(self, pin):
        self.pin = pin
        self.steps = []

    def __call__(self, stop, seconds):
        self.steps.append((self.pin.frequency, self.pin.state, seconds))
        return False


def test_every_event_has_a_pattern():
    assert REQUIRED <= set(PATTERN_NAMES)


def test_note_names():
    assert note_frequency("A4") == 440.0
    assert note_frequency("A5") == 880.0
    assert note_frequency("C6") == pytest.approx(1046.5, abs=0.01)
    assert note_frequency("F#4") == note_frequency("Gb4")
    with pytest.raises(ValueError, match="not a note name"):
        note_frequency("H2")


@pytest.mark.parametrize("name", PATTERN_NAMES)
def test_passive_buzzer_plays_the_tune_as_pwm_frequencies(factory, name):
    pin = factory.pin(18)
    record = Recorder(pin)
    player = BuzzerPlayer("passive", 18, factory, wait=record)
    try:
        player.play(name, wait=True)
        expected = [
            (note_frequency(note), 0.5, ms / 1000) if note else (None, 0.0, ms / 1000)
            for note, ms in PATTERNS[name].tune
        ]
        assert record.steps == expected
        assert pin.frequency is None and pin.state == 0  # silent afterwards
    finally:
        player.close()


@pytest.mark.parametrize("name", PATTERN_NAMES)
def test_active_buzzer_plays_the_rhythm_as_on_off(factory, name):
    pin = factory.pin(23)
    record = Recorder(pin)
    player = BuzzerPlayer("active", 23, factory, wait=record)
    try:
        player.play(name, wait=True)
        expected = [(None, bool(on), ms / 1000) for on, ms in PATTERNS[name].rhythm]
        assert [(f, bool(s), t) for f, s, t in record.steps] == expected
        assert not pin.state
    finally:
        player.close()


def test_active_low_buzzer_is_silent_when_high(factory):
    pin = factory.pin(23)
    record = Recorder(pin)
    player = BuzzerPlayer("active", 23, factory, active_high=False, wait=record)
    try:
        player.play("uno-heard", wait=True)
        assert [bool(s) for _, s, _ in record.steps] == [False, True, False]  # on, off, on
        assert pin.state  # silent = high
    finally:
        player.close()


def test_rhythm_states_and_times_on_real_threads(factory):
    pin = factory.pin(23)
    player = BuzzerPlayer("active", 23, factory)
    quick = Pattern("quick", "test", (("A5", 100),), ((True, 100), (False, 100), (True, 200)))
    try:
        pin.clear_states()
        player.play(quick, wait=True)
        assert [s.state for s in pin.states] == [False, True, False, True, False]
        pin.assert_states_and_times([(0.0, False), (0.0, True), (0.1, False), (0.1, True), (0.2, False)])
    finally:
        player.close()


def test_play_does_not_block_and_a_new_pattern_interrupts(factory):
    pin = factory.pin(18)
    entered = threading.Event()

    def wait_until_stopped(stop, seconds):
        entered.set()
        return stop.wait(5)  # a step that lasts until interrupted

    player = BuzzerPlayer("passive", 18, factory, wait=wait_until_stopped)
    try:
        player.play("challenge-lost")  # returns although the first step never ends
        assert entered.wait(2)
        assert player.is_playing and player.current == "challenge-lost"
        assert pin.frequency == note_frequency("G4")
        entered.clear()
        player.play("uno-heard")
        assert entered.wait(2)
        assert player.current == "uno-heard"
        assert pin.frequency == note_frequency("C6")
        player.stop()
        assert not player.is_playing and pin.frequency is None and pin.state == 0
    finally:
        player.close()


def test_unknown_pattern_names_the_known_ones(factory):
    player = BuzzerPlayer("passive", 18, factory, wait=lambda s, t: False)
    try:
        with pytest.raises(UnknownPatternError, match="uno-heard") as info:
            player.play("uno-missed-typo")
        assert isinstance(info.value, KeyError) and isinstance(info.value, UnoTableError)
    finally:
        player.close()


def test_patterns_are_distinct_by_ear():
    def shape(rhythm):
        return tuple("S" if ms < 150 else "L" for on, ms in rhythm if on)

    shapes = {name: shape(p.rhythm) for name, p in PATTERNS.items()}
    assert len(set(shapes.values())) == len(shapes), shapes
    tunes = {p.tune for p in PATTERNS.values()}
    assert len(tunes) == len(PATTERNS)
    for p in PATTERNS.values():
        assert 0.05 <= p.duration("passive") <= 2.0 and 0.05 <= p.duration("active") <= 2.0


def test_every_tune_is_in_the_buzzer_range(factory):
    buzzer = TonalBuzzer(18, mid_tone=MID_TONE, octaves=OCTAVES, pin_factory=factory)
    try:
        low, high = buzzer.min_tone.frequency, buzzer.max_tone.frequency
    finally:
        buzzer.close()
    for p in PATTERNS.values():
        for note, _ in p.tune:
            if note:
                assert low <= note_frequency(note) <= high, (p.name, note)


def test_browser_description():
    steps = browser_pattern("challenge-won")
    assert steps[0] == {"freq": note_frequency("C6"), "ms": 100}
    assert {"freq": 0, "ms": 40} in steps  # the rest
    active = browser_pattern("uno-heard", "active")
    assert active == [
        {"freq": ACTIVE_BUZZER_HZ, "ms": 60},
        {"freq": 0, "ms": 60},
        {"freq": ACTIVE_BUZZER_HZ, "ms": 60},
    ]
    everything = browser_patterns()
    assert set(everything) == set(PATTERN_NAMES)
    for name, seq in everything.items():
        assert sum(s["ms"] for s in seq) == pytest.approx(PATTERNS[name].duration("passive") * 1000)
    with pytest.raises(UnknownPatternError):
        browser_pattern("nope")


def test_patterns_command_json_is_the_browser_description(capsys):
    import json

    from app.cli import main

    assert main(["patterns", "--json", "--kind", "active"]) == 0
    assert json.loads(capsys.readouterr().out) == browser_patterns("active")
    assert main(["patterns"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in PATTERN_NAMES)
