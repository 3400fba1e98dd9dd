"""The pin map: the shipped files are valid, and every kind of bad file is refused with the
file, the line and the field named."""

import pytest

from firmware_config.errors import PinMapError
from firmware_config.pinmap import (
    BCM_TO_HEADER,
    DEFAULT_PIN_MAP,
    EXAMPLE_PIN_MAPS,
    PinMap,
    load_pin_map,
    parse_pin_map,
    wiring_table,
)
from table.errors import ConfigError, UnoTableError

GOOD = """\
seats:
  0: {button: 17, led: 24}
  1: {button: 27, led: 25}
colour_pad: {red: 12, yellow: 13, green: 19, blue: 26}
buzzer: {kind: passive, pin: 18}
"""


def problems(text):
    with pytest.raises(PinMapError) as info:
        parse_pin_map(text, "table.yaml")
    return info.value


@pytest.mark.parametrize("seats", sorted(EXAMPLE_PIN_MAPS))
def test_shipped_pin_maps_are_valid_without_warnings(seats):
    pin_map = load_pin_map(EXAMPLE_PIN_MAPS[seats])
    assert pin_map.seat_numbers == list(range(seats))
    assert pin_map.warnings == []
    assert pin_map.buzzer is not None and pin_map.colour_pad is not None
    pins = [use.pin for use in pin_map.pin_uses()]
    assert len(pins) == len(set(pins))


def test_default_is_four_seats_with_one_second_hold():
    pin_map = load_pin_map()
    assert pin_map.source == DEFAULT_PIN_MAP
    assert len(pin_map.seats) == 4
    assert pin_map.timing.hold_time == 1.0
    assert pin_map.buzzer.kind == "passive"
    assert pin_map.rgb_led is not None
    assert all(p.led is not None for p in pin_map.seats.values())


def test_pin_used_twice_names_both_uses_and_lines():
    text = GOOD.replace("red: 12", "red: 27")
    err = problems(text)
    assert len(err.problems) == 1
    p = err.problems[0]
    assert (p.file, p.line, p.field) == ("table.yaml", 4, "colour_pad.red")
    assert "GPIO27" in p.message and "seats.1.button (line 3)" in p.message
    assert "table.yaml:4: colour_pad.red" in str(err)


def test_errors_are_project_and_builtin_errors():
    err = problems("seats: {}\n")
    assert isinstance(err, ConfigError) and isinstance(err, UnoTableError)
    assert isinstance(err, ValueError)


def test_unknown_keys_are_refused_with_line_and_allowed_keys():
    text = GOOD.replace("led: 25}", "led: 25, lamp: 4}") + "volume: 11\n"
    err = problems(text)
    fields = {(p.field, p.line) for p in err.problems}
    assert fields == {("seats.1.lamp", 3), ("volume", 6)}
    lamp = next(p for p in err.problems if p.field == "seats.1.lamp")
    assert "unknown key 'lamp'" in lamp.message and "button, led" in lamp.message


def test_seat_without_button_is_refused_at_its_line():
    err = problems(GOOD.replace("1: {button: 27, led: 25}", "1: {led: 25}"))
    assert [(p.line, p.field) for p in err.problems] == [(3, "seats.1.button")]
    assert "required" in err.problems[0].message


def test_missing_seat_numbers_are_named():
    text = GOOD.replace("1: {button: 27, led: 25}", "1: {button: 27, led: 25}\n  3: {button: 22}")
    err = problems(text)
    assert err.problems[0].field == "seats" and err.problems[0].line == 1
    assert "missing seat(s): 2" in err.problems[0].message


def test_one_seat_is_too_few():
    err = problems(GOOD.replace("  1: {button: 27, led: 25}\n", ""))
    assert err.problems[0].field == "seats"
    assert "at least 2" in err.problems[0].message


@pytest.mark.parametrize(
    ("pin", "hint"),
    [
        ("GPIO17", "plain integer: 17"),
        ("BOARD11", "header pin 11 is GPIO17, so write 17"),
        ("J8:6", "not a GPIO (power or ground)"),
        ("0", "HAT ID EEPROM"),
        ("1", "HAT ID EEPROM"),
        ("28", "BCM numbers run 2 to 27"),
        ("17.0", "integer"),
        ("true", "not a pin"),
    ],
)
def test_only_bcm_numbers_are_accepted(pin, hint):
    err = problems(GOOD.replace("button: 17", f"button: {pin}"))
    assert err.problems[0].field == "seats.0.button" and err.problems[0].line == 2
    assert hint in err.problems[0].message


def test_bus_pins_warn_naming_the_bus_and_are_refused_when_the_bus_is_on():
    text = GOOD.replace("button: 17", "button: 2").replace("led: 25", "led: 9")
    pin_map = parse_pin_map(text, "table.yaml")
    warnings = pin_map.warnings
    assert len(warnings) == 2
    assert any("seats.0.button" in w and "I2C1 SDA" in w and "I2C" in w for w in warnings)
    assert any("seats.1.led" in w and "SPI0 MISO" in w for w in warnings)

    err = problems(text + "buses: [spi]\n")
    assert [(p.field, p.line) for p in err.problems] == [("seats.1.led", 3)]
    assert "SPI bus is on" in err.problems[0].message


def test_buzzer_kind_is_checked():
    err = problems(GOOD.replace("kind: passive", "kind: loud"))
    assert err.problems[0].field == "buzzer.kind" and err.problems[0].line == 5


def test_timing_bounds():
    err = problems(GOOD + "timing: {hold_time: 0.05}\n")
    assert err.problems[0].field == "timing.hold_time" and err.problems[0].line == 6
    pin_map = parse_pin_map(GOOD + "timing: {hold_time: 2.0, double_press_window: 0.5}\n")
    assert pin_map.timing.hold_time == 2.0 and pin_map.timing.double_press_window == 0.5


def test_duplicate_yaml_keys_and_syntax_errors_name_the_line():
    err = problems(GOOD.replace("  1: {button: 27, led: 25}", "  0: {button: 27, led: 25}"))
    assert err.problems[0].line == 3 and "written twice (first on line 2)" in err.problems[0].message
    err = problems("seats:\n  0: {button: 17\nbuzzer: null\n")
    assert err.problems[0].line == 3 and "not valid YAML" in err.problems[0].message


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(PinMapError, match="cannot read the pin map"):
        load_pin_map(tmp_path / "nope.yaml")


def test_colour_pad_and_buzzer_must_be_stated_even_when_absent():
    err = problems("seats:\n  0: {button: 17}\n  1: {button: 27}\n")
    assert {p.field for p in err.problems} == {"colour_pad", "buzzer"}
    pin_map = parse_pin_map("seats:\n  0: {button: 17}\n  1: {button: 27}\ncolour_pad: null\nbuzzer: null\n")
    assert pin_map.summary() == "2 seats"


def test_model_validation_without_a_file_names_fields():
    with pytest.raises(ValueError, match=r"seats\.1\.button: GPIO17 is already used by seats\.0\.button"):
        PinMap.model_validate(
            {"seats": {0: {"button": 17}, 1: {"button": 17}}, "colour_pad": None, "buzzer": None}
        )


def test_every_field_has_a_description():
    def walk(model):
        for name, field in model.model_fields.items():
            assert field.description, f"{model.__name__}.{name} has no description"
            ann = field.annotation
            for sub in getattr(ann, "__args__", (ann,)):
                if isinstance(sub, type) and hasattr(sub, "model_fields"):
                    walk(sub)

    walk(PinMap)
    assert PinMap.model_config["extra"] == "forbid"


def test_wiring_table_lists_every_pin_with_its_header_pin():
    pin_map = load_pin_map()
    table = wiring_table(pin_map)
    rows = [line for line in table.splitlines() if line.startswith("| ") and "GPIO" in line and "Part" not in line]
    assert len(rows) == len(pin_map.pin_uses()) == 16
    assert "| Seat 0 button | GPIO17 | 11 |" in table
    assert f"| Passive buzzer | GPIO18 | {BCM_TO_HEADER[18]} |" in table
    assert "RGB LED blue leg | GPIO21 | 40" in table
    assert "Ground (GND)" in table


def test_wiring_command_prints_the_table(capsys, tmp_path):
    from app.cli import main

    assert main(["wiring", "--pin-map", str(EXAMPLE_PIN_MAPS[6])]) == 0
    out = capsys.readouterr().out
    assert "| Seat 5 button | GPIO20 | 38 |" in out and "RGB" not in out
    bad = tmp_path / "bad.yaml"
    bad.write_text("seats:\n  0: {button: 17}\n  1: {buton: 27}\ncolour_pad: null\nbuzzer: null\n")
    assert main(["wiring", "--pin-map", str(bad)]) == 2  # a clean one-line error, not a trace
    err = capsys.readouterr().err
    assert f"{bad}:3: seats.1.buton: unknown key 'buton'" in err


def test_pi_setup_shows_the_current_default_wiring():
    from firmware_config.pinmap import HERE

    setup = (HERE / "PI_SETUP.md").read_text()
    assert wiring_table(load_pin_map()).strip() in setup, "regenerate the table: uno-table wiring"
    for name in ("uno-table.service", "pi-config.txt"):
        assert (HERE / name).is_file()
    unit = (HERE / "uno-table.service").read_text()
    assert "ExecStart=" in unit and "uno-table run" in unit
    assert "Restart=on-failure" in unit and "WantedBy=multi-user.target" in unit
