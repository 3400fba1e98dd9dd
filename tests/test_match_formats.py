"""Match formats over rounds (RULES.md R2-R6), the match config, replay and the summary."""

import csv
import io
import json
import xml.etree.ElementTree as ET

import pytest

from table.errors import ConfigError
from table.matches import Match, MatchConfig, MatchError, load_match_config
from table.scoring import RoundResult


def win(winner, hands, seats=4, **kw):
    """A round where `winner` went out and every other seat shows `hands[seat]`."""
    return RoundResult(seats=seats, winner=winner, hands=hands, **kw)


# --- config ---------------------------------------------------------------------------------


def test_config_defaults_are_the_official_match():
    cfg = load_match_config({})
    assert (cfg.format, cfg.players, cfg.effective_target, cfg.teams) == (
        "standard",
        4,
        500,
        "none",
    )
    assert cfg.points.wild == 50
    assert load_match_config({"format": "continuous"}).effective_target == 15
    assert load_match_config({"target": 200}).effective_target == 200


def test_config_fields_have_descriptions_and_unknown_fields_are_refused():
    for name, field in MatchConfig.model_fields.items():
        assert field.description, name
    with pytest.raises(ConfigError, match="colour"):
        load_match_config({"colour": "red"})


@pytest.mark.parametrize(
    "data, fields",
    [
        ({"target": 0}, ["target"]),
        ({"target": -5}, ["target"]),
        ({"players": 11}, ["players"]),
        ({"format": "golf"}, ["format"]),
        ({"teams": "fixed", "players": 3}, ["teams", "players"]),
        ({"teams": "fixed", "players": 6}, ["teams", "players"]),
        ({"teams": "rotating", "players": 6}, ["teams", "players"]),
        ({"teams": "by-draw", "players": 5}, ["teams", "players"]),
        ({"teams": "fixed", "format": "chips"}, ["teams", "format"]),
        ({"teams": "fixed", "format": "elimination"}, ["teams", "format"]),
        ({"teams": "rotating", "format": "negative"}, ["teams", "format"]),
        ({"teams": "rotating", "target": 300}, ["target", "teams"]),
        ({"rotation_cycles": 2}, ["rotation_cycles", "teams"]),
        ({"teams": "fixed", "rotation_cycles": 3}, ["rotation_cycles", "teams"]),
        ({"names": ["a", "b"]}, ["names", "players"]),
        ({"points": {"wild": 500}}, ["points.wild"]),
    ],
)
def test_contradictory_config_is_refused_naming_the_fields(data, fields):
    with pytest.raises(ConfigError) as err:
        load_match_config(data)
    for f in fields:
        assert f in str(err.value)


def test_referee_rules_config_can_embed_match_config():
    # The referee's RulesConfig will hold a MatchConfig; it must survive a JSON round trip.
    cfg = MatchConfig(format="chips", players=3, target=100, names=("A", "B", "C"))
    assert load_match_config(json.loads(cfg.model_dump_json())) == cfg


# --- R2 standard ----------------------------------------------------------------------------


@pytest.mark.rule("R2")
def test_standard_first_to_target_wins():
    m = Match({"target": 100})
    m.apply(win(0, {1: ("wild",), 2: ("red-9",), 3: ()}))  # 59
    assert m.totals == {0: 59, 1: 0, 2: 0, 3: 0} and not m.over
    m.apply(win(2, {0: ("red-1",), 1: ("blue-skip",), 3: ("green-5",)}))  # 26
    assert not m.over
    m.apply(win(0, {1: ("wild-draw4",), 2: (), 3: ()}))  # 50 -> 109
    assert m.over and m.outcome.ended_by == "target"
    assert m.outcome.winners == (0,) and m.outcome.losers == (1, 3)
    with pytest.raises(MatchError, match="over"):
        m.apply(win(1, {0: (), 2: (), 3: ()}))


@pytest.mark.rule("R2", "D2")
def test_standard_target_is_an_option_and_wild_points_come_from_config():
    cfg = {"target": 40, "points": {"wild": 20, "wild_draw4": 20}, "players": 2}
    m = Match(cfg)
    m.apply(win(1, {0: ("wild", "wild-draw4")}, seats=2))
    assert m.totals == {0: 0, 1: 40} and m.outcome.winners == (1,)


# --- R3 negative ----------------------------------------------------------------------------


@pytest.mark.rule("R3")
def test_negative_lowest_total_wins_when_anyone_reaches_target():
    m = Match({"format": "negative", "target": 60, "players": 3})
    m.apply(win(0, {1: ("wild",), 2: ("red-5",)}, seats=3))
    assert m.totals == {0: 0, 1: 50, 2: 5} and not m.over
    m.apply(win(2, {0: ("blue-9",), 1: ("red-1",)}, seats=3))
    assert m.totals == {0: 9, 1: 51, 2: 5} and not m.over
    m.apply(win(1, {0: ("green-skip", "red-2"), 2: ("red-3",)}, seats=3))
    assert m.totals == {0: 31, 1: 51, 2: 8}
    assert not m.over
    m.apply(win(2, {0: ("wild",), 1: ()}, seats=3))
    assert m.totals[0] == 81 and m.over
    assert m.outcome.winners == (2,) and m.outcome.losers == (0,)


@pytest.mark.rule("R3")
def test_negative_tied_lowest_are_all_winners():
    m = Match({"format": "negative", "target": 10, "players": 3})
    m.apply(win(0, {1: (), 2: ("red-9", "red-1")}, seats=3))
    assert m.over and m.outcome.winners == (0, 1) and m.outcome.losers == (2,)


# --- R4 loss points and chips -----------------------------------------------------------------


@pytest.mark.rule("R4")
def test_loss_points_only_losers_accumulate_first_to_target_loses():
    m = Match({"format": "loss-points", "target": 30, "players": 3})
    m.apply(win(1, {0: ("red-skip",), 2: ("red-4",)}, seats=3))
    assert m.totals == {0: 20, 1: 0, 2: 4}
    m.apply(win(0, {1: ("blue-2",), 2: ("red-skip",)}, seats=3))
    assert m.totals == {0: 20, 1: 2, 2: 24} and not m.over
    m.apply(win(0, {1: ("blue-1",), 2: ("red-7",)}, seats=3))
    assert m.over and m.outcome.losers == (2,) and m.outcome.winners == (1,)


@pytest.mark.rule("R4")
def test_chips_ledger_losers_pay_winner_across_rounds():
    m = Match({"format": "chips", "target": 60, "players": 3, "names": ["Ann", "Bo", "Cy"]})
    m.apply(win(0, {1: ("red-5",), 2: ("wild",)}, seats=3))
    m.apply(win(1, {0: ("red-skip",), 2: ("blue-3",)}, seats=3))
    assert m.ledger == {0: 55 - 20, 1: -5 + 23, 2: -50 - 3}
    assert sum(m.ledger.values()) == 0
    assert [(p.round, p.payer, p.payee, p.chips) for p in m.payments] == [
        (1, 1, 0, 5),
        (1, 2, 0, 50),
        (2, 0, 1, 20),
        (2, 2, 1, 3),
    ]
    assert not m.over
    m.apply(win(0, {1: (), 2: ("red-7",)}, seats=3))  # Cy at -60: lost the stake
    assert m.over and m.outcome.losers == (2,) and m.outcome.winners == (0,)
    s = m.summary()
    assert s.ledger == {"Ann": 42, "Bo": 18, "Cy": -60}


# --- R5 continuous ----------------------------------------------------------------------------


@pytest.mark.rule("R5")
def test_continuous_rank_points_accumulate_to_target():
    m = Match({"format": "continuous", "target": 6})
    m.apply(RoundResult(seats=4, finishing_order=(0, 1, 2)))
    m.apply(RoundResult(seats=4, finishing_order=(0, 2, 1, 3)))
    assert m.totals == {0: 6, 1: 0, 2: 0, 3: -6}
    assert sum(m.totals.values()) == 0
    assert m.over and m.outcome.winners == (0,) and m.outcome.losers == (3,)


# --- R6 elimination ---------------------------------------------------------------------------


@pytest.mark.rule("R6")
def test_elimination_threshold_removes_seats_last_one_left_wins():
    m = Match({"format": "elimination", "target": 50, "players": 3})
    m.apply(win(0, {1: ("wild",), 2: ("red-9",)}, seats=3))
    assert m.active_seats == (0, 2) and m.rounds[-1].eliminated == (1,)
    assert m.next_tables() == ((0, 2),)
    with pytest.raises(MatchError, match="active seats are \\[0, 2\\]"):
        m.apply(win(0, {1: (), 2: ()}, seats=3))
    m.apply(RoundResult(seats=(0, 2), winner=2, hands={0: ("blue-skip",)}))
    assert not m.over and m.seat_totals == {0: 20, 1: 50, 2: 9}
    m.apply(RoundResult(seats=(0, 2), winner=0, hands={2: ("wild-draw4",)}))
    assert m.over and m.outcome.ended_by == "last-standing"
    assert m.outcome.winners == (0,) and m.active_seats == (0,)
    assert m.summary().active == ("seat 0",)


# --- round cap, replay ------------------------------------------------------------------------


def test_round_cap_is_reported():
    m = Match({"format": "standard", "target": 1000, "max_rounds": 2, "players": 2})
    m.apply(win(0, {1: ("red-5",)}, seats=2))
    m.apply(win(1, {0: ("red-9",)}, seats=2))
    assert m.over and m.outcome.ended_by == "round-cap" and m.outcome.winners == (1,)
    assert m.summary().ended_by == "round-cap"


@pytest.mark.rule("R2")
def test_match_is_a_fold_over_its_results():
    rounds = [
        win(0, {1: ("wild",), 2: ("red-9",), 3: ()}),
        win(3, {0: ("red-1",), 1: (), 2: ("blue-reverse",)}),
        win(1, {0: ("green-5",), 2: (), 3: ("yellow-draw2",)}),
    ]
    live = Match({"target": 100})
    for r in rounds:
        live.apply(r)
    as_json = [
        json.loads(json.dumps([r.model_dump(mode="json") for r in rs])) for rs in live.results()
    ]
    again = Match.replay({"target": 100}, as_json)
    assert again.totals == live.totals == {0: 59, 1: 25, 2: 0, 3: 21}
    assert again.summary() == live.summary()


# --- summary ----------------------------------------------------------------------------------


@pytest.mark.rule("R2")
def test_summary_table_running_totals_csv_json_svg():
    m = Match({"target": 100, "players": 3, "names": ["Ann", "Bo", "Cy & <friends>"]})
    m.apply(win(0, {1: ("wild",), 2: ("red-9",)}, seats=3))
    m.apply(
        win(1, {0: ("red-1",), 2: ("blue-7",)}, seats=3, tracked_counts={0: 2}, host_confirmed=True)
    )
    s = m.summary()
    assert s.entrants == ("Ann", "Bo", "Cy & <friends>")
    assert s.totals == {"Ann": 59, "Bo": 8, "Cy & <friends>": 0}
    assert s.rounds[0].hand_points == {"Bo": 50, "Cy & <friends>": 9, "Ann": 0}
    assert s.rounds[1].winners == ("Bo",)
    assert "Ann: tracked 2, revealed 1" in s.rounds[1].flags[0]
    running = [(p.round, p.label, p.total) for p in s.running_totals]
    assert running[:3] == [(0, "Ann", 0), (0, "Bo", 0), (0, "Cy & <friends>", 0)]
    assert (2, "Ann", 59) in running and (2, "Bo", 8) in running and len(running) == 9

    rows = list(csv.DictReader(io.StringIO(s.to_csv())))
    assert [r["Ann total"] for r in rows] == ["59", "59", "59"]  # two rounds, then the total row
    assert rows[2]["round"] == "total" and rows[2]["Bo points"] == "8" and rows[2]["went_out"] == ""
    assert rows[1]["Bo points"] == "8" and rows[1]["went_out"] == "Bo"
    assert "tracked 2" in rows[1]["flags"]

    data = json.loads(s.to_json())
    assert data["winners"] == [] and data["over"] is False
    assert data["running_totals"][-1] == {
        "round": 2,
        "entrant": 2,
        "label": "Cy & <friends>",
        "total": 0,
    }

    svg = s.to_svg()
    root = ET.fromstring(svg)  # well-formed, labels escaped
    ns = "{http://www.w3.org/2000/svg}"
    lines = root.findall(f"{ns}polyline")
    assert len(lines) == 3
    assert [ln.find(f"{ns}title").text for ln in lines] == list(s.entrants)
    # Ann's line rises then stays: 3 points, last two at the same height.
    pts = [tuple(map(float, p.split(","))) for p in lines[0].get("points").split()]
    assert len(pts) == 3 and pts[0][1] > pts[1][1] == pts[2][1]


def test_summary_module_imports_no_plotting_library():
    import subprocess
    import sys

    code = "import table.summary, table.matches, sys; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.rule("R2", "T1")
def test_one_csv_writer_labels_players_by_name_and_never_starts_a_formula():
    """table.summary is the one scores shape and CSV writer (dashboard download and CLI):
    the table's names label the entrants (teams joined), and a name that a spreadsheet would
    read as a formula is written as text."""
    from table.summary import empty_summary, safe_cell

    m = Match({"target": 100, "players": 4, "teams": "fixed"})
    m.apply(win(0, {1: ("wild", "wild"), 3: ("red-9",)}, seats=4))
    names = ["=HYPERLINK(\"http://x\")", "Bo", "Cy", "@Di"]
    s = m.summary(names)
    team = '=HYPERLINK("http://x") & Cy'
    assert s.entrants == (team, "Bo & @Di") and s.winners == (team,)  # 109 passes the target
    assert s.totals == {'=HYPERLINK("http://x") & Cy': 109, "Bo & @Di": 0} and s.rounds[0].winners == (names[0],)
    assert m.summary().entrants == ("seat 0 & seat 2", "seat 1 & seat 3")  # no names known: seats
    text = s.to_csv()
    cells = [c for row in csv.reader(io.StringIO(text)) for c in row]
    assert not any(c.startswith(("=", "+", "-", "@")) for c in cells)
    assert "'=HYPERLINK(\"http://x\") & Cy total" in cells and "'@Di" not in cells
    rows = list(csv.DictReader(io.StringIO(text)))
    assert rows[0]["went_out"] == "'" + names[0] and rows[-1]["round"] == "total"
    assert rows[-1]["went_out"] == "'" + team  # the match winner(s), formula-safe too
    assert (safe_cell(-3), safe_cell("-3"), safe_cell(None)) == (-3, "'-3", "")
    with pytest.raises(ValueError, match="3 names"):
        m.summary(names[:3])
    empty = empty_summary(m.config, names)
    assert empty.rounds == () and empty.totals[names[1]] == 0 and empty.target == 100
