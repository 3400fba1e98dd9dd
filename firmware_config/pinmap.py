"""The pin map: which BCM pin each button, LED and the buzzer use, validated once at start.

A pin map is a YAML file (see `pinmap.yaml` beside this module, and the 2- and 6-seat
examples). Every error names the file, the line and the field, because the person reading it
is standing at a Pi with a screwdriver, not reading Python.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_origin

import yaml
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    model_validator,
)

from firmware_config.errors import PinMapError, Problem

HERE = Path(__file__).resolve().parent
DEFAULT_PIN_MAP = HERE / "pinmap.yaml"
EXAMPLE_PIN_MAPS = {2: HERE / "pinmap-2-seats.yaml", 4: DEFAULT_PIN_MAP, 6: HERE / "pinmap-6-seats.yaml"}

# Seats are numbered from here with no gap, exactly as the referee numbers them (0-based,
# table.inputs.Seat), so a seat number means the same in the pin map, the log and the dashboard.
FIRST_SEAT = 0
MIN_SEATS, MAX_SEATS = 2, 10  # RULES.md S1

COLOURS = ("red", "yellow", "green", "blue")

# BCM number -> physical pin on the 40-pin header (all Pis since the B+).
BCM_TO_HEADER = {
    0: 27, 1: 28, 2: 3, 3: 5, 4: 7, 5: 29, 6: 31, 7: 26, 8: 24, 9: 21, 10: 19, 11: 23,
    12: 32, 13: 33, 14: 8, 15: 10, 16: 36, 17: 11, 18: 12, 19: 35, 20: 38, 21: 40,
    22: 15, 23: 16, 24: 18, 25: 22, 26: 37, 27: 13,
}  # fmt: skip
HEADER_TO_BCM = {header: bcm for bcm, header in BCM_TO_HEADER.items()}
GROUND_HEADER_PINS = (6, 9, 14, 20, 25, 30, 34, 39)

# Pins that can never be used: the HAT ID EEPROM bus. On several Pis the camera connector's
# own I2C (i2c_vc) is muxed onto these too, so touching them can break the camera.
RESERVED_PINS = {
    0: "ID_SD of the HAT ID EEPROM bus (I2C0, which the camera interface can share)",
    1: "ID_SC of the HAT ID EEPROM bus (I2C0, which the camera interface can share)",
}
# Pins of buses a Pi may switch on. Used while the bus is on, they fight the bus: refused when
# the pin map lists the bus in `buses`, warned otherwise.
BUS_PINS: dict[int, tuple[str, str]] = {
    2: ("i2c", "I2C1 SDA"),
    3: ("i2c", "I2C1 SCL"),
    7: ("spi", "SPI0 CE1"),
    8: ("spi", "SPI0 CE0"),
    9: ("spi", "SPI0 MISO"),
    10: ("spi", "SPI0 MOSI"),
    11: ("spi", "SPI0 SCLK"),
    14: ("uart", "UART0 TXD (serial console)"),
    15: ("uart", "UART0 RXD (serial console)"),
}


def _bcm_pin(value: Any) -> int:
    """Accept a plain BCM number; explain every other way people write pins."""
    if isinstance(value, bool) or value is None:
        raise ValueError(f"{value!r} is not a pin: write the BCM number, e.g. 17 for GPIO17")
    if isinstance(value, str):
        text = value.strip().upper().replace(" ", "")
        for prefix in ("GPIO", "BCM"):
            if text.startswith(prefix) and text[len(prefix) :].isdigit():
                raise ValueError(
                    f"write the BCM number as a plain integer: {int(text[len(prefix):])}, "
                    f"not {value!r}"
                )
        for prefix in ("BOARD", "J8:", "PIN", "HEADER"):
            if text.startswith(prefix) and text[len(prefix) :].isdigit():
                header = int(text[len(prefix) :])
                bcm = HEADER_TO_BCM.get(header)
                hint = (
                    f"header pin {header} is GPIO{bcm}, so write {bcm}"
                    if bcm is not None
                    else f"header pin {header} is not a GPIO (power or ground)"
                )
                raise ValueError(f"physical pin numbers are not accepted, only BCM numbers: {hint}")
        raise ValueError(f"{value!r} is not a BCM pin number (write e.g. 17 for GPIO17)")
    if isinstance(value, float) or not isinstance(value, int):
        raise ValueError(f"{value!r} is not a BCM pin number (write an integer, e.g. 17)")
    if value in RESERVED_PINS:
        raise ValueError(f"GPIO{value} is reserved: {RESERVED_PINS[value]}")
    if value not in BCM_TO_HEADER:
        raise ValueError(f"{value} is not a GPIO on the 40-pin header: BCM numbers run 2 to 27")
    return value


BcmPin = Annotated[
    int,
    BeforeValidator(_bcm_pin),
    Field(ge=2, le=27, description="A BCM GPIO number (17 means GPIO17, header pin 11)"),
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SeatPins(_Strict):
    """The parts at one seat."""

    button: BcmPin = Field(
        description="The seat's button, wired between the pin and GND (internal pull-up)"
    )
    led: BcmPin | None = Field(
        default=None, description="Optional LED lit while it is this seat's turn"
    )


class ColourPadPins(_Strict):
    """Four buttons in the middle of the table that name a colour after a Wild."""

    red: BcmPin = Field(description="Button that names red")
    yellow: BcmPin = Field(description="Button that names yellow")
    green: BcmPin = Field(description="Button that names green")
    blue: BcmPin = Field(description="Button that names blue")


class BuzzerPins(_Strict):
    """The buzzer. A passive one plays tunes (PWM); an active one only beeps on and off."""

    kind: Literal["passive", "active"] = Field(
        description="passive: a bare piezo driven with tones; active: a module with its own oscillator"
    )
    pin: BcmPin = Field(description="The pin driving the buzzer (through a transistor if it draws > 16 mA)")
    active_high: bool = Field(
        default=True,
        description="False for buzzer modules that sound when the pin is low (common on 3-pin boards)",
    )


class RgbLedPins(_Strict):
    """One RGB LED that shows the current colour."""

    red: BcmPin = Field(description="Red leg")
    green: BcmPin = Field(description="Green leg")
    blue: BcmPin = Field(description="Blue leg")
    common_anode: bool = Field(
        default=False, description="True when the shared leg goes to 3V3 instead of GND"
    )
    pwm: bool = Field(
        default=True,
        description="Mix colours with PWM (a truer yellow); False drives the legs fully on or off",
    )


class ButtonTiming(_Strict):
    """How presses become gestures."""

    hold_time: float = Field(
        default=1.0, ge=0.3, le=5.0, description="Seconds a button must stay down to count as a hold"
    )
    double_press_window: float = Field(
        default=0.35,
        ge=0.1,
        le=1.0,
        description="Most seconds between releasing a press and starting the next for a double press; "
        "a single press is reported once this window has passed",
    )
    bounce_time: float = Field(
        default=0.02,
        ge=0.0,
        le=0.2,
        description="Seconds of contact bounce to ignore after an edge (0 turns debouncing off)",
    )


class PinMap(_Strict):
    """Everything wired to the Pi's header."""

    model_config = ConfigDict(extra="forbid", frozen=True, title="UNO Table pin map")

    seats: dict[Annotated[int, Field(ge=FIRST_SEAT, le=FIRST_SEAT + MAX_SEATS - 1)], SeatPins] = Field(
        min_length=MIN_SEATS,
        max_length=MAX_SEATS,
        description=f"Seat number ({FIRST_SEAT} up, no gap) to its button and LED; 2 to 10 seats",
    )
    colour_pad: ColourPadPins | None = Field(
        description="The four colour buttons, or null when colours are named on the dashboard only"
    )
    buzzer: BuzzerPins | None = Field(description="The buzzer, or null for a silent table")
    rgb_led: RgbLedPins | None = Field(
        default=None, description="Optional RGB LED that shows the current colour"
    )
    timing: ButtonTiming = Field(default_factory=ButtonTiming, description="Gesture timing")
    buses: list[Literal["i2c", "spi", "uart"]] = Field(
        default_factory=list,
        max_length=3,
        description="Buses switched on in config.txt on this Pi; their pins are refused "
        "(pins of buses not listed only warn)",
    )

    _warnings: list[tuple[tuple, str]] = PrivateAttr(default_factory=list)
    _source: Path | None = PrivateAttr(default=None)
    _lines: dict[tuple, int] = PrivateAttr(default_factory=dict)

    @model_validator(mode="after")
    def _check_wiring(self) -> PinMap:
        faults: list[tuple] = []
        numbers = sorted(self.seats)
        expected = list(range(FIRST_SEAT, FIRST_SEAT + len(numbers)))
        if numbers != expected:
            missing = sorted(set(range(FIRST_SEAT, max(numbers) + 1)) - set(numbers))
            what = ", ".join(str(n) for n in missing) if missing else "none"
            faults.append(
                (
                    ("seats",),
                    f"seats must be numbered {FIRST_SEAT} to {FIRST_SEAT + len(numbers) - 1} with no gap "
                    f"and each needs a button; missing seat(s): {what}",
                )
            )
        first_use: dict[int, PinUse] = {}
        for use in self.pin_uses():
            earlier = first_use.get(use.pin)
            if earlier is not None:
                faults.append(
                    (
                        use.path,
                        f"GPIO{use.pin} is already used by {earlier.field}{{at}} ({earlier.part}); "
                        f"{use.part} needs a pin of its own",
                        earlier.path,
                    )
                )
                continue
            first_use[use.pin] = use
            bus = BUS_PINS.get(use.pin)
            if bus is None:
                continue
            bus_name, signal = bus
            if bus_name in self.buses:
                faults.append(
                    (
                        use.path,
                        f"GPIO{use.pin} is {signal} and the {bus_name.upper()} bus is on (buses: "
                        f"{', '.join(self.buses)}); pick a free pin",
                    )
                )
            else:
                self._warnings.append(
                    (
                        use.path,
                        f"GPIO{use.pin} is {signal}: keep the {bus_name.upper()} bus off in "
                        f"config.txt, or pick another pin",
                    )
                )
        if faults:
            raise WiringError(faults)
        return self

    def pin_uses(self) -> list[PinUse]:
        """Every pin the map uses, in wiring-table order."""
        uses: list[PinUse] = []
        for seat in sorted(self.seats):
            pins = self.seats[seat]
            uses.append(PinUse(("seats", seat, "button"), pins.button, f"seat {seat} button"))
            if pins.led is not None:
                uses.append(PinUse(("seats", seat, "led"), pins.led, f"seat {seat} LED"))
        if self.colour_pad is not None:
            for colour in COLOURS:
                uses.append(
                    PinUse(("colour_pad", colour), getattr(self.colour_pad, colour), f"{colour} pad button")
                )
        if self.buzzer is not None:
            uses.append(PinUse(("buzzer", "pin"), self.buzzer.pin, f"{self.buzzer.kind} buzzer"))
        if self.rgb_led is not None:
            for leg in ("red", "green", "blue"):
                uses.append(PinUse(("rgb_led", leg), getattr(self.rgb_led, leg), f"RGB LED {leg} leg"))
        return uses

    @property
    def seat_numbers(self) -> list[int]:
        return sorted(self.seats)

    @property
    def source(self) -> Path | None:
        """The file this map was read from, if any."""
        return self._source

    @property
    def warnings(self) -> list[str]:
        """Pins that work only while a bus stays off, located like errors."""
        name = str(self._source) if self._source else "<pin map>"
        return [
            str(Problem(name, _line_for(self._lines, path), _dotted(path), message))
            for path, message in self._warnings
        ]

    def summary(self) -> str:
        parts = [f"{len(self.seats)} seats"]
        if any(p.led is not None for p in self.seats.values()):
            parts.append("seat LEDs")
        if self.colour_pad is not None:
            parts.append("colour pad")
        if self.buzzer is not None:
            parts.append(f"{self.buzzer.kind} buzzer")
        if self.rgb_led is not None:
            parts.append("RGB LED")
        return ", ".join(parts)


@dataclass(frozen=True)
class PinUse:
    path: tuple
    pin: int
    part: str

    @property
    def field(self) -> str:
        return _dotted(self.path)


class WiringError(ValueError):
    """Raised inside validation with every fault located by field path, so the loader can add
    line numbers to each."""

    def __init__(self, faults: list[tuple]):
        # Each fault: (path, message[, related path]). A message may hold "{at}", where the
        # loader puts the related field's line.
        self.faults = [(f[0], f[1], f[2] if len(f) > 2 else None) for f in faults]
        super().__init__("; ".join(f"{_dotted(p)}: {m.format(at='')}" for p, m, _ in self.faults))


def _dotted(path: tuple) -> str:
    return ".".join(str(p) for p in path)


def _line_for(lines: dict[tuple, int], path: tuple) -> int | None:
    path = tuple(p for p in path if p != "[key]")
    while True:
        if path in lines:
            return lines[path]
        if not path:
            return None
        path = path[:-1]


def _index_lines(text: str, file: str) -> tuple[dict[tuple, int], list[Problem]]:
    """Map each field path to the line (1-based) where its key is written; report duplicate
    keys, which plain YAML loading would silently resolve to the last one."""
    loader = yaml.SafeLoader(text)
    try:
        root = loader.get_single_node()
    finally:
        loader.dispose()
    lines: dict[tuple, int] = {(): 1}
    problems: list[Problem] = []
    key_loader = yaml.SafeLoader("")

    def walk(node: yaml.Node, path: tuple) -> None:
        if isinstance(node, yaml.MappingNode):
            seen: dict[Any, int] = {}
            for key_node, value_node in node.value:
                try:
                    key = key_loader.construct_object(key_node, deep=True)
                except yaml.YAMLError:
                    key = getattr(key_node, "value", "?")
                line = key_node.start_mark.line + 1
                if isinstance(key, list | dict):
                    continue
                if key in seen:
                    problems.append(
                        Problem(file, line, _dotted(path + (key,)), f"written twice (first on line {seen[key]})")
                    )
                    continue
                seen[key] = line
                lines[path + (key,)] = line
                walk(value_node, path + (key,))
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                lines[path + (i,)] = item.start_mark.line + 1
                walk(item, path + (i,))

    if root is not None:
        walk(root, ())
    return lines, problems


def _allowed_keys(loc: tuple) -> list[str]:
    """The field names valid at the mapping that holds `loc`'s last key."""
    model: Any = PinMap
    for part in loc[:-1]:
        if isinstance(model, type) and issubclass(model, BaseModel):
            field = model.model_fields.get(part) if isinstance(part, str) else None
            if field is None:
                return []
            model = field.annotation
        elif get_origin(model) is dict:
            model = get_args(model)[1]
        else:
            return []
        while get_origin(model) is not None and get_origin(model) is not dict:
            args = [a for a in get_args(model) if a is not type(None)]
            model = args[0] if args else None
    if isinstance(model, type) and issubclass(model, BaseModel):
        return list(model.model_fields)
    return []


def _problems_from(exc: ValidationError, file: str, lines: dict[tuple, int]) -> list[Problem]:
    problems: list[Problem] = []
    for err in exc.errors():
        loc = tuple(err["loc"])
        cause = (err.get("ctx") or {}).get("error")
        if isinstance(cause, WiringError):
            for path, message, related in cause.faults:
                related_line = _line_for(lines, related) if related else None
                at = f" (line {related_line})" if related_line else ""
                problems.append(
                    Problem(file, _line_for(lines, path), _dotted(path), message.format(at=at))
                )
            continue
        kind = err["type"]
        message = err["msg"].removeprefix("Value error, ")
        if kind == "extra_forbidden":
            allowed = _allowed_keys(loc)
            message = f"unknown key {loc[-1]!r}" + (f" (allowed here: {', '.join(allowed)})" if allowed else "")
        elif kind == "missing":
            message = "missing: this field is required"
        problems.append(Problem(file, _line_for(lines, loc), _dotted(tuple(p for p in loc if p != "[key]")), message))
    return problems


def parse_pin_map(text: str, file: str = "<pin map>") -> PinMap:
    """Validate pin map YAML text. `file` names it in error messages."""
    try:
        lines, problems = _index_lines(text, file)
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        raise PinMapError([Problem(file, line, "", f"not valid YAML: {exc.problem or exc}")]) from None
    except yaml.YAMLError as exc:
        raise PinMapError([Problem(file, None, "", f"not valid YAML: {exc}")]) from None
    if problems:
        raise PinMapError(problems)
    if not isinstance(data, dict):
        raise PinMapError(
            [Problem(file, 1, "", "a pin map is a mapping with seats, colour_pad, buzzer (and optional rgb_led, timing)")]
        )
    try:
        pin_map = PinMap.model_validate(data)
    except ValidationError as exc:
        raise PinMapError(_problems_from(exc, file, lines)) from None
    pin_map._lines = lines
    return pin_map


def load_pin_map(path: str | Path | None = None) -> PinMap:
    """Read and validate a pin map file (the 4-seat default when `path` is None)."""
    path = Path(path) if path is not None else DEFAULT_PIN_MAP
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PinMapError([Problem(str(path), None, "", f"cannot read the pin map: {exc.strerror}")]) from None
    pin_map = parse_pin_map(text, str(path))
    pin_map._source = path
    return pin_map


_WIRING = {
    "button": "button between the pin and GND (internal pull-up, no resistor needed)",
    "led": "pin → 330 Ω resistor → LED long leg; short leg → GND",
    "passive": "pin → piezo +, piezo − → GND (a magnetic buzzer needs an NPN transistor)",
    "active": "pin → buzzer module signal/+ ; − → GND (NPN transistor if it draws > 16 mA)",
    "rgb": "pin → 220 Ω resistor → {leg} leg; common leg → {common}",
}


def wiring_table(pin_map: PinMap) -> str:
    """A Markdown wiring table for the README, generated from the pin map."""
    rows = ["| Part | GPIO (BCM) | Header pin | Wiring |", "|---|---|---|---|"]
    for use in pin_map.pin_uses():
        section, *_rest = use.path
        if section == "seats":
            how = _WIRING["button"] if use.path[-1] == "button" else _WIRING["led"]
        elif section == "colour_pad":
            how = _WIRING["button"]
        elif section == "buzzer":
            how = _WIRING[pin_map.buzzer.kind]
            if not pin_map.buzzer.active_high:
                how += "; sounds when the pin is low"
        else:
            common = "3V3" if pin_map.rgb_led.common_anode else "GND"
            how = _WIRING["rgb"].format(leg=use.path[-1], common=common)
        part = use.part[0].upper() + use.part[1:]
        rows.append(f"| {part} | GPIO{use.pin} | {BCM_TO_HEADER[use.pin]} | {how} |")
    grounds = ", ".join(str(p) for p in GROUND_HEADER_PINS)
    rows.append("")
    rows.append(f"Ground (GND) is on header pins {grounds}; 3V3 on pins 1 and 17.")
    return "\n".join(rows) + "\n"
