"""The match's scores, in one shape: ``MatchSummary`` (per-round table, totals, winners,
running totals as chart-ready rows) is what the dashboard's Scores page reads
(``/api/scores``), what ``uno-table simulate --match`` prints, and the one CSV writer
(``to_csv``: the dashboard's download and ``--csv``), besides JSON and an SVG line chart (pure
text, no plotting library). Entrants are labelled by the players' names when the caller
knows them (the table does; a bare simulation says "seat N").
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from table.matches import Match, MatchConfig

#: A spreadsheet reads a cell starting with one of these as a formula (`=HYPERLINK(...)`).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def safe_cell(value: object) -> object:
    """A value safe to open in a spreadsheet: numbers as they are, text that would start a
    formula prefixed with an apostrophe (OWASP's advice for CSV injection). A player's name
    is text anyone at the table may type."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text

# Colour-blind-safe line colours (Okabe-Ito), repeated past 8 entrants.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")


class SummaryRow(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    round: int
    winners: tuple[str, ...] = Field(description="Who went out, one per table.")
    hand_points: dict[str, int] = Field(description="Player label -> points left in hand.")
    points: dict[str, int] = Field(description="Entrant label -> points this round.")
    totals: dict[str, int] = Field(description="Entrant label -> running total.")
    eliminated: tuple[str, ...] = ()
    flags: tuple[str, ...] = Field((), description="Count mismatches the host confirmed.")


class RunningTotal(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    round: int
    entrant: int
    label: str
    total: int


class MatchSummary(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    format: str
    target: int | None
    teams: str
    entrants: tuple[str, ...]
    rounds: tuple[SummaryRow, ...]
    totals: dict[str, int]
    over: bool
    ended_by: str | None
    winners: tuple[str, ...]
    losers: tuple[str, ...]
    active: tuple[str, ...] = Field((), description="Players still in (elimination).")
    ledger: dict[str, int] = Field(default_factory=dict, description="Chip balances.")
    running_totals: tuple[RunningTotal, ...] = Field(
        description="One row per entrant per round, round 0 = the start (all zero)."
    )

    def to_json(self) -> str:
        return self.model_dump_json(indent=2)

    def to_text(self) -> str:
        """A plain-text report: the per-round table, the totals and the winner(s)."""
        names = list(self.entrants)
        width = max([len(n) for n in names] + [6])
        head = f"{'round':>5}  {'went out':<{width}}  " + "  ".join(f"{n:>{width}}" for n in names)
        lines = [
            f"match: {self.format}" + (f", target {self.target}" if self.target else "")
            + (f", teams {self.teams}" if self.teams != "none" else ""),
            head,
            "-" * len(head),
        ]
        for row in self.rounds:
            cells = "  ".join(f"{row.points.get(n, 0):>+{width}}" for n in names)
            lines.append(f"{row.round:>5}  {'; '.join(row.winners):<{width}}  {cells}")
            if row.eliminated:
                lines.append(f"{'':>5}  eliminated: {', '.join(row.eliminated)}")
        lines.append("-" * len(head))
        lines.append(f"{'total':>5}  {'':<{width}}  " + "  ".join(f"{self.totals[n]:>{width}}" for n in names))
        if self.over:
            lines.append(f"winner(s): {', '.join(self.winners)} (ended by {self.ended_by})")
            if self.losers:
                lines.append(f"loser(s): {', '.join(self.losers)}")
        else:
            lines.append("match not over")
        if self.ledger:
            lines.append("chips: " + ", ".join(f"{k} {v:+}" for k, v in self.ledger.items()))
        return "\n".join(lines)

    def to_csv(self) -> str:
        """One row per round: who went out, each entrant's points and running total; then a
        ``total`` row (its went_out column names the match winner(s) once the match is over).
        Every text cell is formula-safe (``safe_cell``)."""
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        header = ["round", "went_out"]
        for e in self.entrants:
            header += [f"{e} points", f"{e} total"]
        w.writerow([safe_cell(c) for c in header + ["eliminated", "flags"]])
        for row in self.rounds:
            line: list[object] = [row.round, "; ".join(row.winners)]
            for e in self.entrants:
                line += [row.points.get(e, 0), row.totals[e]]
            w.writerow([safe_cell(c) for c in line + ["; ".join(row.eliminated), "; ".join(row.flags)]])
        last: list[object] = ["total", " & ".join(self.winners) if self.over else ""]
        for e in self.entrants:
            last += [sum(r.points.get(e, 0) for r in self.rounds), self.totals[e]]
        w.writerow([safe_cell(c) for c in last + ["", ""]])
        return buf.getvalue()

    def to_svg(self, width: int = 640, height: int = 360) -> str:
        return running_totals_svg(self, width, height)


def _namer(cfg: MatchConfig, names: Sequence[str] | None):
    if names is not None and len(names) != cfg.players:
        raise ValueError(f"{len(names)} names for a match of {cfg.players} players")
    return (lambda s: names[s]) if names is not None else cfg.name


def empty_summary(cfg: MatchConfig, names: Sequence[str] | None = None) -> MatchSummary:
    """The summary of a match before its first scored round (every player at 0)."""
    name = _namer(cfg, names)
    players = tuple(name(s) for s in range(cfg.players))
    return MatchSummary(
        format=cfg.format, target=None if cfg.teams == "rotating" else cfg.effective_target, teams=cfg.teams,
        entrants=players, rounds=(), totals=dict.fromkeys(players, 0), over=False, ended_by=None,
        winners=(), losers=(), active=players if cfg.format == "elimination" else (),
        running_totals=tuple(RunningTotal(round=0, entrant=i, label=p, total=0) for i, p in enumerate(players)),
    )  # fmt: skip


def summarize(match: Match, names: Sequence[str] | None = None) -> MatchSummary:
    """`match` as a summary; `names`: the players' names by player number (default: the
    match config's names, else "seat N")."""
    cfg = match.config
    name = _namer(cfg, names)
    labels = {e.index: " & ".join(name(s) for s in e.seats) for e in match.entrants}
    rows = []
    running = [RunningTotal(round=0, entrant=e, label=lab, total=0) for e, lab in labels.items()]
    for r in match.rounds:
        hand = {name(s): p for sc in r.scores for s, p in sorted(sc.hand_points.items())}
        rows.append(
            SummaryRow(
                round=r.number,
                winners=tuple(name(sc.winner) for sc in r.scores),
                hand_points=hand,
                points={labels[e]: p for e, p in r.points.items()},
                totals={labels[e]: t for e, t in r.totals.items()},
                eliminated=tuple(name(s) for s in r.eliminated),
                flags=tuple(
                    f"{name(m.seat)}: tracked {m.tracked}, revealed {m.revealed} "
                    "(host confirmed)"
                    for m in r.confirmed_mismatches
                ),
            )
        )
        running += [
            RunningTotal(round=r.number, entrant=e, label=labels[e], total=t)
            for e, t in r.totals.items()
        ]
    out = match.outcome
    return MatchSummary(
        format=cfg.format,
        target=None if match.schedule else cfg.effective_target,
        teams=cfg.teams,
        entrants=tuple(labels.values()),
        rounds=tuple(rows),
        totals={labels[e]: t for e, t in match.totals.items()},
        over=out.over,
        ended_by=out.ended_by,
        winners=tuple(labels[e] for e in out.winners),
        losers=tuple(labels[e] for e in out.losers),
        active=tuple(name(s) for s in match.active_seats)
        if cfg.format == "elimination"
        else (),
        ledger={name(s): b for s, b in match.ledger.items()},
        running_totals=tuple(running),
    )


def running_totals_svg(summary: MatchSummary, width: int = 640, height: int = 360) -> str:
    """A line per entrant: running total against round. Plain SVG text, any browser shows it."""
    left, right, top, bottom = 56, 150, 24, 40
    pw, ph = max(width - left - right, 10), max(height - top - bottom, 10)
    last_round = max((p.round for p in summary.running_totals), default=0)
    values = [p.total for p in summary.running_totals] or [0]
    lo, hi = min(values + [0]), max(values + [0])
    # The line that ends the match: +target, or -stake for chips.
    line_at = None
    if summary.target is not None:
        line_at = -summary.target if summary.format == "chips" else summary.target
        lo, hi = min(lo, line_at), max(hi, line_at)
    if hi == lo:
        hi = lo + 1

    def x(rnd: int) -> float:
        return left + (pw * rnd / last_round if last_round else 0)

    def y(total: float) -> float:
        return top + ph - ph * (total - lo) / (hi - lo)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" font-family="sans-serif" font-size="12">',
        f"<title>Running totals ({escape(summary.format)})</title>",
        f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#888"/>',
    ]
    for frac in (0, 0.25, 0.5, 0.75, 1):
        val = lo + (hi - lo) * frac
        parts.append(
            f'<text x="{left - 6}" y="{y(val) + 4:.1f}" text-anchor="end">{round(val)}</text>'
        )
    if lo < 0 < hi:
        parts.append(
            f'<line x1="{left}" x2="{left + pw}" y1="{y(0):.1f}" y2="{y(0):.1f}" stroke="#bbb"/>'
        )
    if line_at is not None:
        ty = y(line_at)
        parts.append(
            f'<line x1="{left}" x2="{left + pw}" y1="{ty:.1f}" y2="{ty:.1f}" '
            'stroke="#c00" stroke-dasharray="4 3"><title>target</title></line>'
        )
    step = max(1, last_round // 10)
    for rnd in range(0, last_round + 1, step):
        parts.append(
            f'<text x="{x(rnd):.1f}" y="{top + ph + 16}" text-anchor="middle">{rnd}</text>'
        )
    parts.append(
        f'<text x="{left + pw / 2:.1f}" y="{height - 6}" text-anchor="middle">round</text>'
    )
    for i, label in enumerate(summary.entrants):
        colour = PALETTE[i % len(PALETTE)]
        pts = [p for p in summary.running_totals if p.label == label]
        coords = " ".join(f"{x(p.round):.1f},{y(p.total):.1f}" for p in pts)
        parts.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{coords}">'
            f"<title>{escape(label)}</title></polyline>"
        )
        ly = top + 14 + 18 * i
        parts.append(
            f'<line x1="{left + pw + 12}" x2="{left + pw + 32}" y1="{ly - 4}" y2="{ly - 4}" '
            f'stroke="{colour}" stroke-width="3"/>'
            f'<text x="{left + pw + 38}" y="{ly}">{escape(label)} {summary.totals[label]}</text>'
        )
    parts.append("</svg>")
    return "\n".join(parts)
