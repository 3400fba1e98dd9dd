"""Match formats over many rounds (RULES.md R2-R6, T1-T3): configuration and a replayable Match.

A `Match` is a fold over its round results: `Match.replay(config, rounds)` rebuilds the same
state as applying them one by one, so a host correction (a new log entry, then replay) gives
the right totals without any patching. The referee's RulesConfig embeds `MatchConfig`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from table.errors import ConfigError, validation_problems
from table.scoring import (
    CountMismatch,
    CountMismatchError,
    Format,
    PointTable,
    RoundResult,
    RoundScore,
    ScoringError,
    check_counts,
    score_round,
    trusted,
)
from table.teams import (
    ScheduleRound,
    Team,
    TeamDraw,
    draw_teams,
    fixed_teams,
    opposite_teams,
    partners_opposite,
    rotating_schedule,
)

TeamsMode = Literal["none", "fixed", "rotating", "by-draw"]
EndReason = Literal["target", "last-standing", "schedule", "round-cap"]

# Rank points (R5) are a few per round, so continuous mode needs a far smaller target.
DEFAULT_TARGET: dict[str, int] = {
    "standard": 500,
    "negative": 500,
    "loss-points": 500,
    "chips": 500,
    "continuous": 15,
    "elimination": 500,
}
# Formats where a lower total is better (it is points held, not points won).
LOW_WINS = {"negative", "loss-points", "elimination"}


class MatchError(ScoringError):
    """A round that does not fit the match (wrong seats, match already over...)."""


class MatchConfig(BaseModel):
    """How a match is scored and when it ends. Validated once, at load."""

    model_config = ConfigDict(extra="forbid", frozen=True, title="Match")

    format: Format = Field(
        "standard",
        description="standard (R2: winner scores the other hands, highest wins), negative "
        "(R3: own hand points, lowest wins), loss-points (R4: first to the target loses), "
        "chips (R4: losers pay the winner), continuous (R5: rank points), elimination (R6).",
    )
    players: int = Field(4, ge=2, le=10, description="Number of players in the match (S1).")
    target: int | None = Field(
        None,
        ge=1,
        le=100_000,
        description="Points that end the match (R2-R4), the elimination threshold (R6), or "
        "the chip stake each player can lose (chips). Default: 500; 15 for continuous.",
    )
    points: PointTable = Field(
        default_factory=PointTable,
        description="Card points (D2); PointTable.wilds_20() is seed 000's wild = 20 option.",
    )
    teams: TeamsMode = Field(
        "none",
        description="none; fixed (T1: 4 players, seats 0&2 vs 1&3); rotating (T2: 4 or 8 "
        "players, generated schedule); by-draw (T3: highest with lowest draw).",
    )
    rotation_cycles: int = Field(
        1, ge=1, le=10, description="Rotating partners: how many full schedules to play (T2)."
    )
    table: int | None = Field(
        None,
        ge=0,
        le=1,
        description="T2 with 8 players at two tables (a league match): this match scores only "
        "table 0 or 1 of the schedule, one referee per table; the league adds both halves up "
        "(table.standings.two_table_match). Its totals are this table's share, and it names "
        "no winner: the whole match does.",
    )
    max_rounds: int | None = Field(
        None,
        ge=1,
        le=10_000,
        description="Round cap: the match stops there and reports ended_by='round-cap'.",
    )
    names: tuple[str, ...] | None = Field(
        None, description="Player names in seat order (for the summary); default 'seat N'."
    )

    @model_validator(mode="after")
    def _consistent(self) -> MatchConfig:
        problems = []
        n = self.players
        if self.teams != "none" and self.format in ("chips", "continuous", "elimination"):
            problems.append(
                f"teams={self.teams!r} with format={self.format!r}: {self.format} is scored "
                "seat by seat; teams need standard, negative or loss-points"
            )
        if self.teams == "rotating" and self.format != "standard":
            problems.append(
                f"teams='rotating' with format={self.format!r}: rotating partners keep "
                "individual standard scores (T2)"
            )
        if self.teams == "fixed" and n != 4:
            problems.append(f"teams='fixed' with players={n}: fixed teams (T1) need 4 players")
        if self.teams == "rotating" and n not in (4, 8):
            problems.append(
                f"teams='rotating' with players={n}: rotating partners (T2) need 4 or 8 players"
            )
        if self.teams == "by-draw" and (n % 2 or n < 4):
            problems.append(
                f"teams='by-draw' with players={n}: teams by draw (T3) need an even number "
                "of at least 4 players"
            )
        if self.teams == "rotating" and self.target is not None:
            problems.append(
                "target with teams='rotating': a rotating match ends with its schedule, "
                "not at a target"
            )
        if self.table is not None and not (self.teams == "rotating" and n == 8):
            problems.append(
                f"table={self.table} with teams={self.teams!r} and players={n}: only the "
                "8-player rotating schedule (T2) is played at two tables"
            )
        if self.rotation_cycles != 1 and self.teams != "rotating":
            problems.append(
                f"rotation_cycles with teams={self.teams!r}: only rotating partners have cycles"
            )
        if self.names is not None:
            if len(self.names) != n:
                problems.append(f"names has {len(self.names)} entries but players={n}")
            elif len(set(self.names)) != n or not all(x.strip() for x in self.names):
                problems.append("names must be distinct and non-empty")
        if problems:
            raise ValueError("; ".join(problems))
        return self

    @property
    def effective_target(self) -> int:
        return self.target if self.target is not None else DEFAULT_TARGET[self.format]

    def name(self, seat: int) -> str:
        return self.names[seat] if self.names else f"seat {seat}"


def load_match_config(data: Mapping | MatchConfig | None = None) -> MatchConfig:
    """Validate a match configuration, raising ConfigError that names the fields."""
    if isinstance(data, MatchConfig):
        return data
    try:
        return MatchConfig.model_validate(dict(data or {}))
    except ValidationError as exc:
        raise ConfigError(f"match config: {validation_problems(exc)}") from None


class Payment(BaseModel):
    """One chip payment (R4): a loser pays the round winner the points left in their hand."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    round: int
    payer: int
    payee: int
    chips: int


class MatchRound(BaseModel):
    """One applied round: the results as given, how they scored, the totals after it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    number: int = Field(ge=1)
    results: tuple[RoundResult, ...]
    scores: tuple[RoundScore, ...]
    points: dict[int, int] = Field(description="Entrant -> points this round.")
    totals: dict[int, int] = Field(description="Entrant -> running total after this round.")
    eliminated: tuple[int, ...] = Field((), description="Seats eliminated this round (R6).")
    confirmed_mismatches: tuple[CountMismatch, ...] = Field(
        (), description="Count mismatches the host confirmed (shown in the summary)."
    )


class Outcome(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    over: bool
    ended_by: EndReason | None = None
    winners: tuple[int, ...] = Field((), description="Winning entrants (all tied ones).")
    losers: tuple[int, ...] = Field((), description="Losing entrants (R4's match loser...).")


_NOT_OVER = Outcome(over=False)


class Entrant(BaseModel):
    """A seat, or a team of two, that keeps a running total."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    index: int
    label: str
    seats: tuple[int, ...]


class Match:
    """A match: apply round results in order; every figure is derived from that list."""

    def __init__(
        self,
        config: MatchConfig | Mapping | None = None,
        *,
        team_draws: Sequence[Mapping[int, str]] | None = None,
    ):
        self.config = load_match_config(config)
        cfg = self.config
        self.schedule: tuple[ScheduleRound, ...] = ()
        self.team_draw: TeamDraw | None = None
        self.teams: tuple[Team, ...] = ()
        if cfg.teams == "fixed":
            self.teams = fixed_teams(cfg.players)
        elif cfg.teams == "by-draw":
            if not team_draws:
                raise ConfigError("team_draws: teams='by-draw' needs the cards each seat drew")
            self.team_draw = draw_teams(team_draws)
            if not self.team_draw.complete:
                raise ConfigError(
                    f"team_draws: the draw is not finished, seats {list(self.team_draw.redraw)} "
                    f"must draw again ({self.team_draw.reason})"
                )
            if sorted(self.team_draw.ranking) != list(range(cfg.players)):
                raise ConfigError(
                    f"team_draws: draws from seats {sorted(self.team_draw.ranking)} but "
                    f"players={cfg.players}"
                )
            self.teams = self.team_draw.teams
        elif cfg.teams == "rotating":
            self.schedule = rotating_schedule(cfg.players, cycles=cfg.rotation_cycles)
        if team_draws and cfg.teams != "by-draw":
            raise ConfigError(f"team_draws given but teams={cfg.teams!r}")

        if self.teams:
            self.entrants = tuple(
                Entrant(index=i, label=" & ".join(cfg.name(s) for s in t), seats=t)
                for i, t in enumerate(self.teams)
            )
        else:
            self.entrants = tuple(
                Entrant(index=s, label=cfg.name(s), seats=(s,)) for s in range(cfg.players)
            )
        self.rounds: list[MatchRound] = []
        self.totals: dict[int, int] = {e.index: 0 for e in self.entrants}
        self.seat_totals: dict[int, int] = {s: 0 for s in range(cfg.players)}
        self.payments: list[Payment] = []
        self.eliminated: dict[int, int] = {}
        self.outcome = _NOT_OVER

    # --- replay ------------------------------------------------------------------------

    @classmethod
    def replay(
        cls,
        config: MatchConfig | Mapping | None,
        rounds: Sequence[RoundResult | Mapping | Sequence[RoundResult | Mapping]],
        *,
        team_draws: Sequence[Mapping[int, str]] | None = None,
    ) -> Match:
        match = cls(config, team_draws=team_draws)
        for r in rounds:
            match.apply(r)
        return match

    def copy(self) -> Match:
        """An independent copy (the referee's states share matches; apply() on the copy)."""
        new = object.__new__(Match)
        new.__dict__.update(self.__dict__)
        new.rounds = list(self.rounds)
        new.totals = dict(self.totals)
        new.seat_totals = dict(self.seat_totals)
        new.payments = list(self.payments)
        new.eliminated = dict(self.eliminated)
        return new

    def results(self) -> list[tuple[RoundResult, ...]]:
        """The input list this match is a fold of (feed it to `replay`)."""
        return [r.results for r in self.rounds]

    # --- state -------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.outcome.over

    @property
    def active_seats(self) -> tuple[int, ...]:
        """Seats still in the rotation (R6: eliminated seats leave it)."""
        return tuple(s for s in range(self.config.players) if s not in self.eliminated)

    @property
    def ledger(self) -> dict[int, int]:
        """Chip balances (R4 chips); they always sum to zero."""
        return dict(self.seat_totals) if self.config.format == "chips" else {}

    def next_tables(self) -> tuple[tuple[int, ...], ...]:
        """The seating(s) the next round is played at (several tables for 8-player T2)."""
        if self.schedule:
            if self.over:
                return ()
            tables = self.schedule[len(self.rounds)].tables
            return tables if self.config.table is None else (tables[self.config.table],)
        if self.team_draw is not None:
            return (self.team_draw.seating,)
        return (self.active_seats,)

    def pending_mismatches(self, result: RoundResult | Mapping) -> list[CountMismatch]:
        """For the dashboard: what the host must check before this result can be applied."""
        return check_counts(_as_result(result))

    # --- applying a round --------------------------------------------------------------

    def apply(
        self,
        results: RoundResult | Mapping | Sequence[RoundResult | Mapping],
        *,
        checked: bool = False,
    ) -> MatchRound:
        """Score one round (one result, or one per table) and update every total.
        `checked`: the result was built by the referee from its own state (seats, cards and
        winner already consistent), so the per-card consistency pass is skipped."""
        cfg = self.config
        if self.over:
            raise MatchError(
                f"the match is over ({self.outcome.ended_by}) after {len(self.rounds)} rounds"
            )
        if isinstance(results, RoundResult | Mapping):
            results = [results]
        results = tuple(_as_result(r) for r in results)
        number = len(self.rounds) + 1
        self._check_tables(results, number)

        found = [(r, check_counts(r)) for r in results]
        mismatches = [m for _, ms in found for m in ms]
        unconfirmed = [m for r, ms in found if not r.host_confirmed for m in ms]
        if unconfirmed:
            raise CountMismatchError(unconfirmed)

        scores = []
        for r, ms in found:
            table_teams = self.teams or (opposite_teams(r.seats) if self.schedule else None)
            scores.append(score_round(r, cfg.format, cfg.points, table_teams, ms, checked))

        seat_points: dict[int, int] = {}
        for sc in scores:
            seat_points.update(sc.seat_points)
        if self.teams:
            points = dict(scores[0].team_points)
        else:
            points = {s: seat_points.get(s, 0) for s in self.totals}
        for s, p in seat_points.items():
            self.seat_totals[s] += p
        for e, p in points.items():
            self.totals[e] += p
        if cfg.format == "chips":
            for sc in scores:
                for s, p in sc.seat_points.items():
                    if p < 0:
                        self.payments.append(
                            Payment(round=number, payer=s, payee=sc.winner, chips=-p)
                        )

        newly_out: list[int] = []
        if cfg.format == "elimination":
            for s in self.active_seats:
                if self.seat_totals[s] >= cfg.effective_target:
                    self.eliminated[s] = number
                    newly_out.append(s)

        record = trusted(  # every field computed here from validated data
            MatchRound,
            number=number,
            results=results,
            scores=tuple(scores),
            points=points,
            totals=dict(self.totals),
            eliminated=tuple(newly_out),
            confirmed_mismatches=tuple(mismatches),
        )
        self.rounds.append(record)
        self.outcome = self._decide()
        return record

    def _check_tables(self, results: tuple[RoundResult, ...], number: int) -> None:
        if self.schedule:
            expected = self.schedule[number - 1].tables
            if self.config.table is not None:  # one half of a two-table match
                expected = (expected[self.config.table],)
            if len(results) != len(expected):
                raise MatchError(
                    f"round {number}: the schedule has {len(expected)} table(s), "
                    f"got {len(results)} result(s)"
                )
            remaining = list(expected)
            for r in results:
                match = [t for t in remaining if set(t) == set(r.seats)]
                if not match:
                    raise MatchError(
                        f"round {number}: seats {list(r.seats)} are not a table of the "
                        f"schedule {[list(t) for t in expected]}"
                    )
                if not partners_opposite(r.seats, opposite_teams(match[0])):
                    raise MatchError(
                        f"round {number}: seats {list(r.seats)} do not put the scheduled "
                        f"partners {list(opposite_teams(match[0]))} opposite each other"
                    )
                remaining.remove(match[0])
            return
        if len(results) != 1:
            raise MatchError(f"round {number}: one table, got {len(results)} results")
        (r,) = results
        active = set(self.active_seats)
        if set(r.seats) != active:
            raise MatchError(
                f"round {number}: seats {sorted(r.seats)} played, but the active seats are "
                f"{sorted(active)}"
            )
        if self.teams and not partners_opposite(r.seats, self.teams):
            raise MatchError(
                f"round {number}: seats {list(r.seats)} do not put partners "
                f"{[list(t) for t in self.teams]} opposite each other"
            )

    def _ranked(self, low_wins: bool, among=None) -> tuple[tuple[int, ...], tuple[int, ...]]:
        pool = {e: t for e, t in self.totals.items() if among is None or e in among}
        best = min(pool.values()) if low_wins else max(pool.values())
        worst = max(pool.values()) if low_wins else min(pool.values())
        return (
            tuple(e for e, t in pool.items() if t == best),
            tuple(e for e, t in pool.items() if t == worst),
        )

    def _decide(self) -> Outcome:
        cfg = self.config
        fmt = cfg.format
        target = cfg.effective_target
        played = len(self.rounds)
        if self.schedule:
            if played >= len(self.schedule):
                if cfg.table is not None:  # half a match: both tables' totals decide
                    return Outcome(over=True, ended_by="schedule")
                winners, losers = self._ranked(low_wins=False)
                return Outcome(over=True, ended_by="schedule", winners=winners, losers=losers)
        elif fmt == "elimination":
            active = self.active_seats
            if len(active) <= 1:
                losers = tuple(sorted(self.eliminated, key=lambda s: self.eliminated[s]))
                return Outcome(
                    over=True, ended_by="last-standing", winners=active, losers=losers[:1]
                )
        elif fmt == "chips":
            if min(self.totals.values()) <= -target:
                winners, _ = self._ranked(low_wins=False)
                losers = tuple(e for e, t in self.totals.items() if t <= -target)
                return Outcome(over=True, ended_by="target", winners=winners, losers=losers)
        elif max(self.totals.values()) >= target:
            winners, losers = self._ranked(low_wins=fmt in LOW_WINS)
            return Outcome(over=True, ended_by="target", winners=winners, losers=losers)
        if cfg.max_rounds is not None and played >= cfg.max_rounds:
            if fmt == "elimination":
                winners, losers = self._ranked(low_wins=True, among=set(self.active_seats))
                losers = tuple(self.eliminated) or losers
            else:
                winners, losers = self._ranked(low_wins=fmt in LOW_WINS)
            return Outcome(over=True, ended_by="round-cap", winners=winners, losers=losers)
        return _NOT_OVER

    def summary(self, names=None):
        """The match as a `table.summary.MatchSummary`, entrants labelled by `names` (the
        players' names by player number) when given."""
        from table.summary import summarize

        return summarize(self, names)


def _as_result(r: RoundResult | Mapping) -> RoundResult:
    return r if isinstance(r, RoundResult) else RoundResult.parse(r)
