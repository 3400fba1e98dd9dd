"""The rules configuration (one validated pydantic model) and its named presets.

Every option of RULES.md lives in a sub-model, so the house rules, scoring formats and teams
of issue 3 are new fields in `house`, `scoring` and `teams`, not a new shape. An option that
exists either works or is refused at load ("not implemented yet"): there are no silent
no-op options. Contradictions are refused at load with a message naming the fields.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from table.errors import ConfigError

_STRICT = ConfigDict(extra="forbid", validate_default=True)


class SetupConfig(BaseModel):
    """How a round starts (section S)."""

    model_config = ConfigDict(**_STRICT, title="Round setup")

    dealer: Literal["draw", "host"] = Field(
        "draw",
        description="S2: 'draw' = every player draws a card, highest number deals (action and "
        "wild cards cannot win; ties draw again); 'host' = the host names the dealer. Later "
        "rounds: the winner of the last round deals.",
    )
    hand_size: int = Field(7, ge=1, le=20, description="S3: cards dealt to each player.")
    first_wild: Literal["first-player-names", "redraw"] = Field(
        "first-player-names",
        description="S4: a Wild turned up first: the first player names the colour and plays, "
        "or it is put back and another card is flipped.",
    )
    first_reverse: Literal["right-of-dealer", "dealer-first", "left-counter-clockwise"] = Field(
        "right-of-dealer",
        description="S4: a Reverse turned up first: the player to the dealer's right starts and "
        "play goes counter-clockwise; or the dealer starts, then to the right (Mattel sheet); or "
        "the player left of the dealer starts and play goes counter-clockwise (seed 001).",
    )
    flip_until_number: bool = Field(
        False, description="S4 option (seed 001): keep flipping until a number card shows."
    )
    first_player: Literal["left-of-dealer", "dealer"] = Field(
        "left-of-dealer", description="S5: who plays first: the player left of the dealer, or the dealer."
    )


class PlayConfig(BaseModel):
    """A turn, illegal plays and the Wild Draw Four (sections P and W)."""

    model_config = ConfigDict(**_STRICT, title="Play")

    illegal_play_penalty: int = Field(
        2, ge=0, le=10, description="P7: cards drawn for an illegal play (0 = only the warning)."
    )
    advice_penalty: int = Field(
        2, ge=0, le=10, description="P8: cards drawn for giving advice, applied by the host."
    )
    play_drawn: Literal["any", "number-only"] = Field(
        "any",
        description="P6: after drawing on one's turn, the drawn card may be played at once if "
        "playable ('any'), or only if it is a number card ('number-only', seed 002).",
    )
    wild_draw4_legal: Literal["no-current-colour", "no-playable-card"] = Field(
        "no-current-colour",
        description="W2: a Wild Draw Four is legal when the player holds no card of the current "
        "colour (official), or only with no other playable card (seed 002).",
    )
    challenge_extra: int = Field(
        2, ge=0, le=10, description="W3: extra cards an unsuccessful challenger draws on top of the 4."
    )


class UnoConfig(BaseModel):
    """Calling UNO (section U)."""

    model_config = ConfigDict(**_STRICT, title="UNO calls")

    missed_penalty: int = Field(2, ge=0, le=10, description="U2: cards drawn when caught without the call.")
    false_call_penalty: int = Field(
        2, ge=0, le=10, description="U4: cards drawn for calling UNO when not left with one card."
    )
    wrong_catch_penalty: int = Field(
        2, ge=0, le=10, description="U5: cards the catcher draws for a wrong catch."
    )
    strict: bool = Field(
        False,
        description="U6: the table itself catches a missed call the moment the next player "
        "begins, instead of waiting for a player to press catch.",
    )


class PointsConfig(BaseModel):
    """The point table (D2); number cards always count their face value."""

    model_config = ConfigDict(**_STRICT, title="Card points")

    action: int = Field(20, ge=0, le=100, description="D2: points of a Skip, Reverse or Draw Two.")
    wild: int = Field(50, ge=0, le=100, description="D2: points of a Wild (seed 000: 20).")
    wild_draw4: int = Field(50, ge=0, le=100, description="D2: points of a Wild Draw Four (seed 000: 20).")


class ScoringConfig(BaseModel):
    """Scoring and match format (section R). The referee keeps a `table.matches.Match` built
    from these fields (see `RulesConfig.match_config`)."""

    model_config = ConfigDict(**_STRICT, title="Scoring")

    points: PointsConfig = Field(default_factory=PointsConfig, description="D2: the point table.")
    format: Literal["standard", "negative", "loss-points", "chips", "continuous", "elimination"] = Field(
        "standard",
        description="R2 'standard' = the winner scores the points left in the other hands, "
        "highest total wins; R3 'negative' = own hand points, lowest wins; R4 'loss-points' = "
        "first to the target loses, 'chips' = losers pay the winner; R5 'continuous' = the "
        "round goes on until one player is left, rank points; R6 'elimination' = reaching the "
        "threshold eliminates the player, last one left wins.",
    )
    target: int = Field(
        500, ge=1, le=100000,
        description="R2-R6: points that end the match / the elimination threshold / the chip "
        "stake (default 500; 15 for continuous, whose rank points are a few per round).",
    )  # fmt: skip
    max_rounds: int | None = Field(
        None, ge=1, le=10000, description="Round cap: the match stops there (reported as 'round-cap')."
    )
    @model_validator(mode="before")
    @classmethod
    def _default_target(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("target") is None and data.get("format") == "continuous":
            data = {**data, "target": 15}
        elif isinstance(data, dict) and "target" in data and data["target"] is None:
            data = {k: v for k, v in data.items() if k != "target"}
        return data

    last_card_action: Literal["allowed", "draw-one"] = Field(
        "allowed",
        description="R7 (seed 002): 'draw-one' = the last card may not be an action or wild "
        "card; a player going out on one draws one more card that turn.",
    )


class HouseRules(BaseModel):
    """House rules (section H), all off by default."""

    model_config = ConfigDict(**_STRICT, title="House rules")

    stack_draw2: bool = Field(False, description="H1: a Draw Two may be stacked on a pending Draw Two.")
    stack_draw4: bool = Field(
        False, description="H2: a Wild Draw Four may be stacked on a pending Draw Two or Wild Draw Four."
    )
    draw2_pair_on_draw4: bool = Field(
        False,
        description="H2 seed 003 variant: a same-colour pair of Draw Twos may cover a pending "
        "Wild Draw Four; a single Draw Two may not cover a pair.",
    )
    deflect: bool = Field(
        False,
        description="H3: on a pending Draw Two, a same-colour Skip passes the count to the player "
        "after next, a same-colour Reverse sends it back to the previous player.",
    )
    follow_stack_colour: bool = Field(
        False, description="H4: after a stack is drawn, the next player must follow the colour of its last Draw Two."
    )
    jump_in: Literal["off", "any", "number-only", "coloured-only"] = Field(
        "off",
        description="H5: a card identical to the top card may be played out of turn: 'any' card, "
        "'number-only' (seed 004) or 'coloured-only' (no wild cards, seed 003).",
    )
    jump_in_own: bool = Field(True, description="H5 (seed 004): a player may jump in on their own card.")
    multi_play: Literal["off", "same-rank", "identical-pair"] = Field(
        "off",
        description="H6: 'same-rank' = several cards of one number or symbol in one turn (n "
        "Skips skip n players; the colour is the top card's, so the player picks); "
        "'identical-pair' (seed 002) = an identical pair together, its effect applies once.",
    )
    draw_until_playable: Literal["off", "playable", "playable-number"] = Field(
        "off",
        description="H7: keep drawing until a playable card comes, then play it ('playable-number': "
        "until a playable number card, seed 002).",
    )
    seven_o: bool = Field(False, description="H8: a 0 rotates hands in the direction of play (hand counts move).")
    seven_o_zero: Literal["any", "current-colour"] = Field(
        "any", description="H8: which 0 rotates hands: any, or only a 0 of the current colour (seed 002)."
    )
    seven_o_seven: bool = Field(
        True, description="H8: with seven_o, a 7 swaps hands with a seat its player names (seed 003)."
    )
    red0_draw10: bool = Field(False, description="H9: red 0 makes the next player draw ten and lose the turn.")
    silent2: bool = Field(
        False,
        description="H10: after a 2 nobody may make a sound; the first seat-button press is a "
        "sound and draws 2; the silence ends then or when the player of the 2 plays again.",
    )
    slap9: bool = Field(False, description="H11: after a 9 every seat presses; the slowest draws 2.")
    slap9_limit: float = Field(
        3.0, gt=0.0, le=60.0,
        description="H11: seconds after the 9 (or the first press) within which every seat must press.",
    )  # fmt: skip
    slap_penalty: int = Field(2, ge=0, le=10, description="H10/H11: cards drawn by the loud or slow seat.")
    attack_mode: bool = Field(
        False,
        description="H12: instead of drawing one card, the player presses the (virtual) launcher: "
        "the table says how many cards it gives, 0..attack_max, from a roll in the input.",
    )
    attack_max: int = Field(4, ge=1, le=10, description="H12: most cards one launcher press gives.")


class TeamsConfig(BaseModel):
    """Teams (section T)."""

    model_config = ConfigDict(**_STRICT, title="Teams")

    @field_validator("mode", mode="before")
    @classmethod
    def _alias(cls, v: Any) -> Any:
        return "fixed" if v == "partners" else v  # RULES.md T1 calls them partners

    mode: Literal["none", "fixed", "rotating", "by-draw"] = Field(
        "none",
        description="T1 'fixed' = teams of two with 4 players, partners opposite (seats 0&2, 1&3). "
        "T2 'rotating' and T3 'by-draw' are kept by table.matches for the host; the referee of "
        "one table refuses them.",
    )


class RulesConfig(BaseModel):
    """Every rule option of the referee, validated once at load."""

    model_config = ConfigDict(**_STRICT, title="UNO Table rules")

    name: str = Field("custom", min_length=1, max_length=40, description="Preset or rule-set name.")
    players: int = Field(4, ge=2, le=10, description="S1: number of seats, 2 to 10.")
    setup: SetupConfig = Field(default_factory=SetupConfig, description="Section S options.")
    play: PlayConfig = Field(default_factory=PlayConfig, description="Sections P and W options.")
    uno: UnoConfig = Field(default_factory=UnoConfig, description="Section U options.")
    scoring: ScoringConfig = Field(default_factory=ScoringConfig, description="D2 and section R options.")
    house: HouseRules = Field(default_factory=HouseRules, description="Section H options.")
    teams: TeamsConfig = Field(default_factory=TeamsConfig, description="Section T options.")

    @model_validator(mode="after")
    def _consistent(self) -> RulesConfig:
        problems: list[str] = []
        if self.setup.hand_size * self.players + 1 > 108:
            problems.append(
                f"setup.hand_size={self.setup.hand_size} with players={self.players} needs "
                f"{self.setup.hand_size * self.players + 1} cards but the deck has 108"
            )
        t = self.teams.mode
        if t in ("rotating", "by-draw"):
            problems.append(
                f"teams.mode={t!r}: the referee of one table keeps fixed teams only; run "
                "rotating (T2) and by-draw (T3) matches with table.matches"
            )
        h = self.house
        if h.deflect and not h.stack_draw2:
            problems.append("house.deflect needs house.stack_draw2 (deflecting passes a pending stack)")
        if h.follow_stack_colour and not (h.stack_draw2 or h.stack_draw4):
            problems.append("house.follow_stack_colour needs house.stack_draw2 or house.stack_draw4")
        if h.draw2_pair_on_draw4 and not h.stack_draw4:
            problems.append("house.draw2_pair_on_draw4 needs house.stack_draw4 (a pair covers a stacked Wild Draw Four)")
        if h.seven_o_zero != "any" and not h.seven_o:
            problems.append("house.seven_o_zero needs house.seven_o")
        if not h.seven_o_seven and not h.seven_o:
            problems.append("house.seven_o_seven=false needs house.seven_o")
        if h.jump_in == "off" and not h.jump_in_own:
            problems.append("house.jump_in_own=false needs house.jump_in")
        if h.attack_mode and h.draw_until_playable != "off":
            problems.append("house.attack_mode and house.draw_until_playable both replace the turn's draw: choose one")
        if self.scoring.format == "continuous" and self.players < 3:
            problems.append("scoring.format='continuous' needs players>=3 (with 2 the first out decides the round)")
        if self.scoring.format == "elimination" and self.players < 3:
            problems.append("scoring.format='elimination' needs players>=3")
        if not problems:
            try:
                self.match_config()
            except ValidationError as exc:
                for err in exc.errors():
                    msg = err["msg"].removeprefix("Value error, ")
                    problems.append(
                        f"teams.mode/scoring.format/players: {msg}".replace("teams=", "teams.mode=")
                        .replace("format=", "scoring.format=")
                    )
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def match_config(self):
        """The `table.matches.MatchConfig` this rule set scores with (R2-R6, T1)."""
        from table.matches import MatchConfig
        from table.scoring import PointTable

        pts = self.scoring.points
        return MatchConfig(
            format=self.scoring.format,
            players=self.players,
            target=self.scoring.target,
            points=PointTable(action=pts.action, wild=pts.wild, wild_draw4=pts.wild_draw4),
            teams=self.teams.mode,
            max_rounds=self.scoring.max_rounds,
        )


#: Named presets: overrides on top of the defaults (which are the official rules).
PRESETS: dict[str, dict[str, Any]] = {
    "official": {"name": "official"},
    "two-player": {"name": "two-player", "players": 2},
    # Seed 002, the house rules of the Chinese teaching sheet, all of them.
    "seed-house": {
        "name": "seed-house",
        "play": {"play_drawn": "number-only", "wild_draw4_legal": "no-playable-card"},
        "scoring": {"last_card_action": "draw-one"},
        "house": {
            "stack_draw2": True, "stack_draw4": True, "deflect": True, "follow_stack_colour": True,
            "jump_in": "any", "multi_play": "identical-pair", "draw_until_playable": "playable-number",
            "seven_o": True, "seven_o_zero": "current-colour", "seven_o_seven": False,
            "red0_draw10": True, "silent2": True, "slap9": True,
        },
    },
    # The spirit of UNO No Mercy with the standard deck: heavy stacking, no escape by drawing
    # one card, hands that move; no jump-in or seat-button games (they slow a table down).
    "no-mercy-lite": {
        "name": "no-mercy-lite",
        "house": {
            "stack_draw2": True, "stack_draw4": True, "deflect": True,
            "draw_until_playable": "playable", "seven_o": True, "multi_play": "same-rank",
        },
    },
    # A loud evening: stacking, jump-in, Seven-O, draw until playable.
    "party": {
        "name": "party",
        "house": {
            "stack_draw2": True, "stack_draw4": True, "jump_in": "any", "seven_o": True,
            "draw_until_playable": "playable",
        },
    },
}  # fmt: skip


#: (rule ID, option path, short label) rows of the preset table in PRESETS.md.
_TABLE_ROWS: tuple[tuple[str, str, str], ...] = (
    ("S1", "players", "seats"),
    ("P6", "play.play_drawn", "drawn card playable at once"),
    ("W2", "play.wild_draw4_legal", "Wild Draw Four legal when"),
    ("R2-R6", "scoring.format", "match format"),
    ("R2", "scoring.target", "target (default 500)"),
    ("R7", "scoring.last_card_action", "last card an action card"),
    ("T1", "teams.mode", "teams"),
    ("H1", "house.stack_draw2", "stack Draw Two"),
    ("H2", "house.stack_draw4", "stack Wild Draw Four"),
    ("H2", "house.draw2_pair_on_draw4", "pair of Draw Twos covers a Draw Four"),
    ("H3", "house.deflect", "deflect with Skip / Reverse"),
    ("H4", "house.follow_stack_colour", "follow the stack's colour"),
    ("H5", "house.jump_in", "jump-in"),
    ("H6", "house.multi_play", "multi-play"),
    ("H7", "house.draw_until_playable", "draw until playable"),
    ("H8", "house.seven_o", "Seven-O (0 rotates)"),
    ("H8", "house.seven_o_zero", "which 0 rotates"),
    ("H8", "house.seven_o_seven", "7 swaps"),
    ("H9", "house.red0_draw10", "red 0 = Draw Ten"),
    ("H10", "house.silent2", "Silent 2"),
    ("H11", "house.slap9", "Slap 9"),
    ("H12", "house.attack_mode", "attack mode"),
)


def _get(cfg: BaseModel, path: str) -> Any:
    node: Any = cfg
    for part in path.split("."):
        node = getattr(node, part)
    return node


def presets_markdown() -> str:
    """The preset x rule table of table/PRESETS.md, generated from PRESETS (a test keeps the
    file current: regenerate with `python -c "from table.rules import write_presets_markdown as w; w()"`)."""
    names = list(PRESETS)
    configs = [RulesConfig.model_validate(PRESETS[n]) for n in names]

    def cell(v: Any) -> str:
        if v is True:
            return "yes"
        if v is False:
            return "-"
        return "default" if v is None else str(v)

    lines = [
        "# Rule presets",
        "",
        "Generated from `table.rules.PRESETS` by `table.rules.presets_markdown()`; a test fails",
        "when this file is stale. Choose one with `uno-table simulate --preset NAME` or a rules",
        "file (`preset: NAME`), and change single options with `--set house.jump_in=any`.",
        "Rule IDs refer to `RULES.md`; every option not listed keeps the official default.",
        "",
        "| rule | option | " + " | ".join(f"`{n}`" for n in names) + " |",
        "|---|---|" + "---|" * len(names),
    ]
    for rule, path, label in _TABLE_ROWS:
        values = [
            "-" if path.startswith("house.seven_o_") and not c.house.seven_o else cell(_get(c, path))
            for c in configs
        ]
        lines.append(f"| {rule} | {label} (`{path}`) | " + " | ".join(values) + " |")
    lines += [
        "",
        "- `official`: the Mattel sheet (RULES.md defaults).",
        "- `two-player`: official with 2 seats (A4: Reverse acts as Skip).",
        "- `seed-house`: every house rule of seed 002 (the Chinese teaching sheet): stacking with",
        "  deflect and colour following, identical pairs, draw until a playable number card,",
        "  jump-in, only a 0 of the current colour rotates hands (no 7 swap in that text), red 0",
        "  Draw Ten, Silent 2, Slap 9, Wild Draw Four only with no other playable card, only a",
        "  drawn number card may be played at once, and no going out on an action card (R7).",
        "- `no-mercy-lite`: the spirit of UNO No Mercy with the standard deck: stack Draw Twos and",
        "  Draw Fours, deflect, multi-play of one rank, draw until playable, Seven-O. No jump-in",
        "  and no seat-button games, so a table of strangers can follow it.",
        "- `party`: stacking, jump-in, Seven-O, draw until playable.",
        "",
    ]
    return "\n".join(lines)


def write_presets_markdown(path: str | Path | None = None) -> Path:
    target = Path(path) if path is not None else Path(__file__).with_name("PRESETS.md")
    target.write_text(presets_markdown())
    return target


def _merge(base: dict, over: dict) -> dict:
    out = copy.deepcopy(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _format_errors(exc: ValidationError, where: str) -> str:
    lines = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "(top level)"
        msg = err["msg"].removeprefix("Value error, ")
        lines.append(f"{loc}: {msg}" if loc != "(top level)" else msg)
    return f"invalid rules in {where}: " + "; ".join(lines)


def parse_override(text: str) -> dict[str, Any]:
    """'play.illegal_play_penalty=0' -> {'play': {'illegal_play_penalty': 0}} (YAML values)."""
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"override {text!r}: expected KEY=VALUE, like 'uno.strict=true'")
    value = yaml.safe_load(raw) if raw.strip() else ""
    out: dict[str, Any] = {}
    node = out
    parts = key.strip().split(".")
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = value
    return out


def load_rules(
    preset: str | None = "official",
    path: str | Path | None = None,
    overrides: dict[str, Any] | list[str] | None = None,
) -> RulesConfig:
    """Build the rules: a preset, then a YAML file (which may name its own `preset:`), then
    overrides (a nested dict or 'a.b=value' strings). Raises ConfigError naming the fields."""
    data: dict[str, Any] = {}
    where = f"preset {preset!r}" if preset else "defaults"
    file_data: dict[str, Any] = {}
    if path is not None:
        p = Path(path)
        try:
            file_data = yaml.safe_load(p.read_text()) or {}
        except OSError as exc:
            raise ConfigError(f"cannot read rules file {p}: {exc.strerror}") from exc
        except yaml.YAMLError as exc:
            raise ConfigError(f"rules file {p} is not valid YAML: {exc}") from exc
        if not isinstance(file_data, dict):
            raise ConfigError(f"rules file {p}: expected a mapping of options, got {type(file_data).__name__}")
        file_data = dict(file_data)
        preset = file_data.pop("preset", preset)
        where = str(p)
    if preset:
        if preset not in PRESETS:
            raise ConfigError(f"unknown preset {preset!r}: choose one of {', '.join(PRESETS)}")
        data = _merge(data, PRESETS[preset])
    data = _merge(data, file_data)
    if overrides:
        if isinstance(overrides, list):
            for item in overrides:
                data = _merge(data, parse_override(item))
        else:
            data = _merge(data, overrides)
        where += " with overrides"
    try:
        return RulesConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_format_errors(exc, where)) from None


def preset(name: str, **overrides: Any) -> RulesConfig:
    """A named preset, optionally with top-level or nested overrides."""
    return load_rules(name, overrides=overrides or None)
