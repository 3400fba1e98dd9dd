"""Match downloads: the scores table as CSV (one row per round, then totals)."""

from __future__ import annotations

import csv
import io

#: A spreadsheet reads a cell starting with one of these as a formula (`=HYPERLINK(...)`).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def cell(value) -> object:
    """A value safe to open in a spreadsheet: numbers as they are, text that would start a
    formula prefixed with an apostrophe (OWASP's advice for CSV injection)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text


def scores_csv(scores: dict) -> str:
    players = [cell(p) for p in scores.get("players", [])]
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")
    out.writerow(["round", *players, "round winner"])
    for row in scores.get("rounds", []):
        points = list(row.get("points", []))
        winner = row.get("winner")
        name = players[winner] if isinstance(winner, int) and 0 <= winner < len(players) else ""
        out.writerow([row.get("round", ""), *points, name])
    out.writerow(["total", *scores.get("totals", []), ""])
    winners = scores.get("winners") or []
    names = [players[w] for w in winners if isinstance(w, int) and 0 <= w < len(players)]
    out.writerow(["match winner", " & ".join(names) if names else "(match not finished)"])
    out.writerow(["format", cell(scores.get("format", "")), "target", cell(scores.get("target", ""))])
    return buf.getvalue()
