"""League scoring, pure: a table's scored rounds as plain data, two tables as one 8-player
rotating match (T2, seeds 000 and 003), and club standings over many tables' matches.

Each table's own referee scores its rounds (`table.matches.Match`, one half of the schedule at
a two-table match). What a league receives from a table is that list of rounds, exactly as the
table's referee scored them from its log (`round_records`); what it shows is computed here from
those lists and nothing else, so the standings are a fold over the tables' logs like a table's
state is a fold over its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from table.errors import validation_problems
from table.matches import LOW_WINS, Match, MatchConfig, MatchError
from table.scoring import RoundResult, ScoringError

StandingsBy = Literal["total", "wins"]


class LeagueDataError(ScoringError):
    """Round data from a table that does not hold together (bad shape, rounds out of order)."""


class TableRound(BaseModel):
    """One round as a table's referee scored it: the result (players, hands) and the points
    each player added to their total."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    number: int = Field(ge=1, le=10_000)
    result: RoundResult
    points: dict[int, int] = Field(description="Player -> points this round (seat_points).")


class TableMatch(BaseModel):
    """What a league knows of one match at one table (one log): who plays, its rounds, its end."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    table: str
    log: str
    players: tuple[str, ...] = Field(min_length=2, max_length=10)
    format: str = "standard"
    part: int | None = Field(None, ge=0, le=1, description="Table 0/1 of a two-table match.")
    rounds: tuple[TableRound, ...] = ()
    over: bool = False
    winners: tuple[int, ...] = Field((), description="Winning players (match over).")


def round_records(match: Match | None) -> list[dict[str, Any]]:
    """A table's scored rounds as JSON-ready data (what a table publishes)."""
    if match is None:
        return []
    out = []
    for rec in match.rounds:
        points: dict[int, int] = {}
        for sc in rec.scores:
            points.update(sc.seat_points)
        for result in rec.results:
            out.append(
                {
                    "number": rec.number,
                    "result": result.model_dump(mode="json"),
                    "points": {str(p): v for p, v in points.items() if p in result.seats},
                }
            )
    return out


def outcome_winners(match: Match | None) -> list[int]:
    """The players who won the match (empty while it runs, or for half a two-table match)."""
    if match is None or not match.over:
        return []
    return sorted(p for e in match.outcome.winners for p in match.entrants[e].seats)


def parse_rounds(data: Any) -> tuple[TableRound, ...]:
    """Validate a table's published rounds: numbered 1, 2, 3... in order."""
    if not isinstance(data, Sequence) or isinstance(data, str | bytes):
        raise LeagueDataError("rounds: expected a list")
    try:
        rounds = tuple(TableRound.model_validate(r) for r in data)
    except ValidationError as exc:
        raise LeagueDataError(f"rounds: {validation_problems(exc)}") from None
    for i, r in enumerate(rounds, 1):
        if r.number != i:
            raise LeagueDataError(f"rounds: round {r.number} where round {i} was expected")
    return rounds


# --- two tables, one match (T2 with 8 players) ---------------------------------------------


def two_table_config(format_config: MatchConfig | Mapping | None = None) -> MatchConfig:
    """The whole 8-player rotating match (both tables), from either half's config or none."""
    base = dict(format_config.model_dump() if isinstance(format_config, MatchConfig) else format_config or {})
    base.update(players=8, teams="rotating", table=None, target=None, format="standard")
    return MatchConfig.model_validate(base)


def two_table_match(halves: Sequence[TableMatch], config: MatchConfig | None = None) -> Match:
    """Score the match as the seeds say (000, 003: "八人游戏时，就分开二组玩 ... 合计２８次"):
    round k of the schedule is the two tables' round k together; each player's total is the
    sum over the rounds they played, wherever they sat. A round counts once both tables have
    scored it. Raises LeagueDataError when the halves do not make one match."""
    if len(halves) != 2:
        raise LeagueDataError(f"a two-table match needs 2 tables, got {len(halves)}")
    by_part = sorted(halves, key=lambda h: -1 if h.part is None else h.part)
    if [h.part for h in by_part] != [0, 1]:
        raise LeagueDataError(
            "a two-table match needs table 0 and table 1 of the schedule, got "
            + ", ".join(f"{h.table}: {h.part}" for h in halves)
        )
    a, b = by_part
    if a.players != b.players or len(a.players) != 8:
        raise LeagueDataError(
            f"tables {a.table} and {b.table} must name the same 8 players in the same order "
            f"({list(a.players)} vs {list(b.players)})"
        )
    cfg = two_table_config(config)
    if cfg.names is None:
        cfg = cfg.model_copy(update={"names": a.players})
    match = Match(cfg)
    for ra, rb in zip(a.rounds, b.rounds, strict=False):
        try:
            match.apply([ra.result, rb.result])
        except ScoringError as exc:  # MatchError, count mismatches: not one match
            raise LeagueDataError(f"round {ra.number}: {exc}") from None
    return match


def schedule_seatings(players: Sequence[str]) -> list[dict[str, Any]]:
    """Who sits where at each table in each round of the 8-player schedule (for the pages)."""
    match = Match(two_table_config({"names": tuple(players)}))
    return [
        {
            "round": r.round,
            "tables": [[players[p] for p in t] for t in r.tables],
        }
        for r in match.schedule
    ]


# --- club standings ----------------------------------------------------------------------


class Standing(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    player: str
    total: int
    rounds: int
    matches: int
    won: int
    tables: tuple[str, ...]


def club_standings(matches: Sequence[TableMatch], by: StandingsBy = "total") -> list[Standing]:
    """One row per player name over every table's matches: points added up, matches played
    and won. `by='total'` ranks by points (lowest first when every match is of a format where
    the lowest total wins), `by='wins'` by matches won, then points."""
    acc: dict[str, dict[str, Any]] = {}
    for m in matches:
        names = m.players
        for r in m.rounds:
            for p, pts in r.points.items():
                if 0 <= p < len(names):
                    row = acc.setdefault(names[p], {"total": 0, "rounds": 0, "matches": set(), "won": 0, "tables": set()})
                    row["total"] += pts
                    row["rounds"] += 1
        for p, name in enumerate(names):
            row = acc.setdefault(name, {"total": 0, "rounds": 0, "matches": set(), "won": 0, "tables": set()})
            row["matches"].add((m.table, m.log))
            row["tables"].add(m.table)
            if m.over and p in m.winners:
                row["won"] += 1
    low = bool(matches) and all(m.format in LOW_WINS for m in matches)
    sign = 1 if low else -1
    rows = [
        Standing(
            player=name,
            total=v["total"],
            rounds=v["rounds"],
            matches=len(v["matches"]),
            won=v["won"],
            tables=tuple(sorted(v["tables"])),
        )
        for name, v in acc.items()
    ]
    if by == "wins":
        rows.sort(key=lambda s: (-s.won, sign * s.total, s.player))
    else:
        rows.sort(key=lambda s: (sign * s.total, -s.won, s.player))
    return rows


__all__ = [
    "LeagueDataError",
    "MatchError",
    "Standing",
    "StandingsBy",
    "TableMatch",
    "TableRound",
    "club_standings",
    "outcome_winners",
    "parse_rounds",
    "round_records",
    "schedule_seatings",
    "two_table_config",
    "two_table_match",
]
