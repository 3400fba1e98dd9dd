"""Teams of two (RULES.md T1-T3): fixed partners, rotating-partner schedules, teams by draw.

Partners always sit opposite: at a table of n seats, positions i and i + n/2. A team is a
pair of player numbers (the seat each player had at the start of the match).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from table.errors import ConfigError, UnoTableError
from table.scoring import card_kind

Team = tuple[int, int]


class TeamError(UnoTableError, ValueError):
    """Teams that cannot be formed or a draw sequence that does not follow the redraw rule."""


def opposite_teams(seating: Sequence[int]) -> tuple[Team, ...]:
    """Teams of a table whose partners sit opposite: positions i and i + n/2 (T1)."""
    n = len(seating)
    if n < 4 or n % 2:
        raise ConfigError(f"players: teams of two need an even count of at least 4, got {n}")
    half = n // 2
    return tuple((seating[i], seating[i + half]) for i in range(half))


def fixed_teams(players: int = 4) -> tuple[Team, ...]:
    """T1: four players, seats 0 & 2 against 1 & 3."""
    if players != 4:
        raise ConfigError(f"players: fixed teams (T1) need exactly 4 players, got {players}")
    return opposite_teams(range(4))


def partners_opposite(seating: Sequence[int], teams: Sequence[Sequence[int]]) -> bool:
    n = len(seating)
    pos = {p: i for i, p in enumerate(seating)}
    return all(a in pos and b in pos and (pos[a] - pos[b]) % n == n // 2 for a, b in teams)


# --- T2: rotating partners ----------------------------------------------------------------


class ScheduleRound(BaseModel):
    """One round of a rotating-partner schedule: each table's seating, partners opposite."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    round: int = Field(ge=1, description="1-based round number.")
    tables: tuple[tuple[int, int, int, int], ...] = Field(
        description="Each table's players in clockwise seat order; partners at 0&2 and 1&3."
    )

    @property
    def teams(self) -> tuple[Team, ...]:
        return tuple(t for table in self.tables for t in opposite_teams(table))


def _round_robin(n: int) -> list[list[Team]]:
    """The circle method: n-1 perfect matchings of n players, every pair exactly once."""
    fixed = n - 1
    rounds = []
    for r in range(n - 1):
        pairs = [(r, fixed)]
        for k in range(1, n // 2):
            pairs.append(((r + k) % (n - 1), (r - k) % (n - 1)))
        rounds.append([tuple(sorted(p)) for p in pairs])
    return rounds


def rotating_schedule(
    players: int, rounds_per_partner: int = 4, cycles: int = 1
) -> tuple[ScheduleRound, ...]:
    """T2: each player partners every other player for `rounds_per_partner` rounds in a row.

    4 players: 3 pairings x 4 = 12 rounds at one table. 8 players: 7 pairings x 4 = 28 rounds
    at two tables. Seats stay put for a partner's block (people only move when partners
    change, seed 003: "每换一次对家就玩四局"); the two pairs that share a table rotate
    between blocks so opponents vary too.
    """
    if players not in (4, 8):
        raise ConfigError(
            f"players: rotating partners (T2) are defined for 4 or 8 players, got {players}"
        )
    if rounds_per_partner < 1 or cycles < 1:
        raise ConfigError("rounds_per_partner and cycles must be at least 1")
    out: list[ScheduleRound] = []
    for _ in range(cycles):
        for block, matching in enumerate(_round_robin(players)):
            # Rotate which pairs share a table, so 8 players meet varied opponents.
            shift = block % len(matching)
            pairs = matching[shift:] + matching[:shift]
            tables = tuple(
                (a[0], b[0], a[1], b[1]) for a, b in zip(pairs[0::2], pairs[1::2], strict=True)
            )
            for _ in range(rounds_per_partner):
                out.append(ScheduleRound(round=len(out) + 1, tables=tables))
    return tuple(out)


# --- T3: teams by draw --------------------------------------------------------------------


class TeamDraw(BaseModel):
    """Where a team draw stands: either teams are formed, or some seats must draw again."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    complete: bool
    teams: tuple[Team, ...] = Field(
        (), description="Highest with lowest, second highest with second lowest, ..."
    )
    seating: tuple[int, ...] = Field(
        (), description="A seating with partners opposite (4 players: high, mid, low, mid)."
    )
    redraw: tuple[int, ...] = Field((), description="Seats that must draw again next.")
    reason: str = ""
    ranking: tuple[int, ...] = Field((), description="Seats from highest to lowest draw.")


def draw_teams(draws: Sequence[Mapping[int, str]]) -> TeamDraw:
    """T3: form teams from the cards each seat drew; the redraw rule (like S2) is ours:

    1. Every seat draws one card. Action and wild cards have no number: those seats draw
       again (only they), until every seat holds a number. Same inside a tie-break redraw.
    2. Seats are ranked by their number, highest first; pair i-th highest with i-th lowest.
    3. A tie that would change the teams (any tie except between exactly the two middle
       seats) is broken by the tied seats drawing again; a redraw only orders the tied seats
       among themselves.

    `draws[0]` has every seat; each later entry has exactly the seats the previous answer
    asked to redraw. Returns the teams, or the seats that must draw next.
    """
    if not draws:
        raise TeamError("draws: at least one draw (every seat) is needed")
    seats = sorted(draws[0])
    n = len(seats)
    if n % 2 or n < 4:
        raise ConfigError(
            f"players: teams by draw (T3) need an even number of at least 4 players, got {n}"
        )
    keys: dict[int, list[int]] = {s: [] for s in seats}
    pending: set[int] = set(seats)  # who must draw in the next entry
    waiting_for_number: set[int] = set(seats)
    state: TeamDraw | None = None
    for step, draw in enumerate(draws):
        if state is not None and state.complete:
            raise TeamError(f"draws[{step}]: teams were already formed after draws[{step - 1}]")
        if set(draw) != pending:
            raise TeamError(
                f"draws[{step}]: expected draws from seats {sorted(pending)}, got {sorted(draw)}"
            )
        for seat, card in draw.items():
            try:
                kind, number = card_kind(card)
            except UnoTableError as exc:
                raise TeamError(f"draws[{step}]: seat {seat}: {exc}") from None
            if kind == "number":
                keys[seat].append(number)  # type: ignore[arg-type]
                waiting_for_number.discard(seat)
            else:
                # Also during a tie-break: the group is resolved only once all its seats
                # hold a number from the same number of draws.
                waiting_for_number.add(seat)
        state = _resolve(seats, keys, waiting_for_number)
        pending = set(state.redraw)
    assert state is not None
    return state


def _resolve(seats, keys, waiting) -> TeamDraw:
    if waiting:
        return TeamDraw(
            complete=False,
            redraw=tuple(sorted(waiting)),
            reason="action and wild cards have no number: draw again",
        )
    n = len(seats)
    ranking = sorted(seats, key=lambda s: keys[s], reverse=True)
    # Group equal keys; a group matters unless it is exactly the two middle positions.
    redraw: list[int] = []
    i = 0
    while i < n:
        j = i
        while j + 1 < n and keys[ranking[j + 1]] == keys[ranking[i]]:
            j += 1
        if j > i and not (i == n // 2 - 1 and j == n // 2):
            redraw.extend(ranking[i : j + 1])
        i = j + 1
    if redraw:
        return TeamDraw(
            complete=False,
            redraw=tuple(sorted(redraw)),
            reason="tied draws decide the teams: the tied seats draw again",
            ranking=tuple(ranking),
        )
    teams = tuple((ranking[k], ranking[n - 1 - k]) for k in range(n // 2))
    seating = tuple(t[0] for t in teams) + tuple(t[1] for t in teams)
    return TeamDraw(complete=True, teams=teams, seating=seating, ranking=tuple(ranking))
