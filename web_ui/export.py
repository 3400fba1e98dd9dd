"""Match downloads: the scores table as CSV (one row per round, then totals)."""

from __future__ import annotations

import csv
import io


def scores_csv(scores: dict) -> str:
    players = [str(p) for p in scores.get("players", [])]
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
    out.writerow(["format", scores.get("format", ""), "target", scores.get("target", "")])
    return buf.getvalue()
