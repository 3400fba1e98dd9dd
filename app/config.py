"""`uno-table.yaml`: every setting of the whole table, with its default, validated once at
start. Each section is the typed model of the folder that owns it (vision's `VisionConfig`,
the referee's rules); the pin map is a file of its own, validated by `firmware_config` with
its line numbers. `rules` is a patch on top of the preset, checked against the referee's
`RulesConfig` here, at load.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from app.league.mqtt import LeagueConfig
from table.errors import ConfigError, validation_problems
from table.names import clean_names
from vision.config import VisionConfig

_STRICT = ConfigDict(extra="forbid", validate_default=True)


class DashboardConfig(BaseModel):
    model_config = ConfigDict(**_STRICT, title="Dashboard")

    host: str = Field(
        "0.0.0.0",
        min_length=1,
        description="Address the dashboard listens on (0.0.0.0: every phone on the network).",
    )
    port: int = Field(8000, ge=0, le=65535, description="TCP port of the dashboard (0: any free port, printed at start).")
    threads: int = Field(
        64,
        ge=32,
        le=512,
        description="Server threads. Each open live view holds one; 24 stay free for pages and commands.",
    )
    allowed_hosts: list[str] = Field(
        default_factory=list,
        max_length=32,
        description="Names phones may use to reach the dashboard besides its IP addresses, "
        "localhost and this machine's name (e.g. [uno.lan, '*.home.arpa']; '*': any). "
        "Other Host headers get 400 (DNS rebinding).",
    )
    host_pin: str | None = Field(
        None,
        pattern=r"^[0-9]{4,8}$",
        description="Host PIN (4-8 digits). Empty: a new random PIN is printed at each start.",
    )


class GpioConfig(BaseModel):
    model_config = ConfigDict(**_STRICT, title="GPIO")

    pin_map: Path | None = Field(
        None, description="Pin map YAML (firmware_config/). Empty: the shipped 4-seat map."
    )
    mock: bool = Field(
        False,
        description="Use gpiozero's MockFactory (no Pi needed; buttons pressed from the dashboard).",
    )


class AskConfig(BaseModel):  # defaults: table/doubt.py, measured in docs/replay.md
    """When the table asks the host about a camera reading (table/doubt.py decides; the Host
    page shows the card's crop and its likeliest names, one tap answers)."""

    model_config = ConfigDict(**_STRICT, title="Ask the host")

    enabled: bool = Field(True, description="Ask the host about unsure camera readings.")
    min_confidence: float = Field(
        0.8, ge=0, le=1,
        description="A card read with a probability under this is asked about.",
    )
    min_margin: float = Field(
        0.25, ge=0, le=1,
        description="A card whose two likeliest faces are closer than this in probability is asked about.",
    )


class AppConfig(BaseModel):
    """The whole table: who plays, by which rules, seen by which camera."""

    model_config = ConfigDict(**_STRICT, title="UNO Table")

    players: list[str] = Field(
        default_factory=lambda: ["Ana", "Ben", "Cleo", "Dev"],
        min_length=2,
        max_length=10,
        description="Player names in seat order (seat 0 first, clockwise). S1: 2 to 10.",
    )
    preset: str = Field("official", description="Rules preset (see README: presets).")
    rules: dict[str, Any] = Field(
        default_factory=dict,
        description="Rule overrides on top of the preset, e.g. {house: {stack_draw2: true}}.",
    )
    data_dir: Path | None = Field(
        None, description="Where the database and model overrides live. Empty: $UNO_TABLE_DATA or ./data."
    )
    vision: VisionConfig = Field(
        default_factory=VisionConfig,
        description="Camera source (`source: {type: picamera2|device|video|folder|sim}`), "
        "detector, zones and tracker settings. Without a source, `run` uses the Pi camera on "
        "a Pi, else the first USB webcam.",
    )
    gpio: GpioConfig = Field(default_factory=GpioConfig, description="Seat buttons, buzzer, LEDs.")
    dashboard: DashboardConfig = Field(default_factory=DashboardConfig, description="The dashboard.")
    ask: AskConfig = Field(default_factory=AskConfig, description="When the table asks the host about a reading.")
    league: LeagueConfig | None = Field(
        None,
        description="Publish this table's log to a league's MQTT broker: {broker, table, match, "
        "part, username, password, tls} (README: Leagues). Empty: a table on its own.",
    )

    @model_validator(mode="after")
    def _names(self) -> AppConfig:
        # The one check of names (table/names.py), the same as Setup's: trimmed, no control
        # characters, bounded, unique.
        try:
            self.players = clean_names(self.players)
        except ConfigError as exc:
            raise ValueError(str(exc)) from None
        return self

    def rules_config(self):
        """The validated rules for these players (preset + overrides + player count)."""
        from table.rules import load_rules

        overrides = dict(self.rules)
        part = self.league.part if self.league is not None else None
        if part is not None:
            # T2 with 8 players at two tables: the 8 names of the match, 4 seats here.
            if len(self.players) != 8:
                raise ConfigError(
                    f"league.part={part}: a table of a two-table match names the match's 8 "
                    f"players (the same list at both tables), got {len(self.players)}"
                )
            teams = dict(overrides.get("teams") or {})
            teams.setdefault("mode", "rotating")
            teams["table"] = part
            return load_rules(self.preset, overrides={**overrides, "players": 4, "teams": teams})
        overrides.setdefault("players", len(self.players))
        if overrides["players"] != len(self.players):
            raise ConfigError(
                f"rules.players={overrides['players']} but {len(self.players)} players are named"
            )
        return load_rules(self.preset, overrides=overrides)


def load_app_config(path: str | Path | None = None, **overrides: Any) -> AppConfig:
    """Read `uno-table.yaml` (or defaults when `path` is None), apply overrides, validate.

    A missing file named explicitly, bad YAML or a bad field gives ConfigError naming the file
    and the field."""
    data: dict[str, Any] = {}
    where = "defaults"
    if path is not None:
        p = Path(path)
        where = str(p)
        try:
            data = yaml.safe_load(p.read_text(encoding="utf-8")) or {}
        except FileNotFoundError:
            raise ConfigError(f"config file {p} does not exist") from None
        except IsADirectoryError:
            raise ConfigError(f"config file {p} is a folder, not a file") from None
        except OSError as exc:
            raise ConfigError(f"cannot read config file {p}: {exc.strerror}") from None
        except UnicodeDecodeError as exc:
            raise ConfigError(
                f"config file {p} is not UTF-8 text (byte {exc.start}: {exc.object[exc.start:exc.start + 1]!r}); "
                "is it the right file?"
            ) from None
        except yaml.YAMLError as exc:
            raise ConfigError(f"config file {p} is not valid YAML: {_yaml_problem(exc)}") from None
        if not isinstance(data, dict):
            raise ConfigError(f"config file {p}: expected a mapping of settings")
    league = overrides.pop("league", None)
    if league is not None:  # the command line's league settings over the file's section
        data["league"] = {**(data.get("league") or {}), **league}
    data.update({k: v for k, v in overrides.items() if v is not None})
    try:
        config = AppConfig.model_validate(data)
        config.rules_config()  # the rules are part of the config: refuse bad ones at start
    except ValidationError as exc:
        raise ConfigError(f"{where}: " + validation_problems(exc)) from None
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    return config


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """The YAML error without PyYAML's '<unicode string>' (the caller names the file)."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
    return where + (f"{context}; " if context else "") + problem


def default_config_yaml() -> str:
    """The defaults as a commented YAML file (`uno-table config --write`)."""
    out = ["# uno-table.yaml: every setting with its default. Delete what you do not change."]
    for name, field in AppConfig.model_fields.items():
        out.append(f"# {field.description}")
        value = AppConfig().model_dump(mode="json")[name]
        out.append(yaml.safe_dump({name: value}, sort_keys=False).rstrip())
    return "\n".join(out) + "\n"
