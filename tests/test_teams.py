"""Teams (RULES.md T1-T3): fixed partners, rotating schedules, teams by draw."""

import itertools
from collections import Counter

import pytest

from table.errors import ConfigError
from table.matches import Match, MatchError
from table.scoring import RoundResult, score_round
from table.teams import (
    TeamError,
    draw_teams,
    fixed_teams,
    partners_opposite,
    rotating_schedule,
)

# --- T1 -------------------------------------------------------------------------------------


@pytest.mark.rule("T1")
def test_fixed_teams_sit_opposite():
    assert fixed_teams(4) == ((0, 2), (1, 3))
    assert partners_opposite((0, 1, 2, 3), fixed_teams())
    assert not partners_opposite((0, 2, 1, 3), fixed_teams())


@pytest.mark.rule("T1")
@pytest.mark.parametrize("players", [2, 3, 5, 6, 8])
def test_fixed_teams_refused_with_other_counts(players):
    with pytest.raises(ConfigError, match=f"players.*{players}|players={players}"):
        fixed_teams(players)
    with pytest.raises(ConfigError, match=f"teams='fixed' with players={players}"):
        Match({"teams": "fixed", "players": players})


@pytest.mark.rule("T1")
def test_team_wins_round_with_both_losing_hands():
    # Seat 1 goes out: team (1, 3) wins; seats 0 and 2 (the losing team) pay; partner 3's
    # own hand is shown but not scored.
    result = RoundResult(
        seats=4,
        winner=1,
        hands={0: ("wild", "red-2"), 2: ("blue-skip",), 3: ("green-9",)},
    )
    score = score_round(result, "standard", teams=fixed_teams())
    assert score.team_points == {0: 0, 1: 72}
    m = Match({"teams": "fixed", "target": 100, "names": ["A", "B", "C", "D"]})
    m.apply(result)
    assert m.totals == {0: 0, 1: 72}
    assert [e.label for e in m.entrants] == ["A & C", "B & D"]
    m.apply(RoundResult(seats=4, winner=2, hands={1: ("wild-draw4",), 3: ("red-5",)}))
    assert m.totals == {0: 55, 1: 72} and not m.over
    m.apply(RoundResult(seats=4, winner=3, hands={0: ("red-9",), 2: ("wild",)}))
    assert m.over and m.outcome.winners == (1,)
    s = m.summary()
    assert s.winners == ("B & D",) and s.totals == {"A & C": 55, "B & D": 131}


@pytest.mark.rule("T1", "R3")
def test_teams_negative_losing_team_adds_both_hands():
    m = Match({"teams": "fixed", "format": "negative", "target": 100})
    m.apply(RoundResult(seats=4, winner=0, hands={1: ("red-5",), 3: ("wild",), 2: ("red-9",)}))
    assert m.totals == {0: 0, 1: 55}


@pytest.mark.rule("T1")
def test_partners_must_sit_opposite_in_results():
    m = Match({"teams": "fixed"})
    with pytest.raises(MatchError, match="opposite"):
        m.apply(RoundResult(seats=(0, 2, 1, 3), winner=0, hands={1: (), 3: ()}))


# --- T2 -------------------------------------------------------------------------------------


def _partner_counts(schedule):
    counts = Counter()
    for rnd in schedule:
        for team in rnd.teams:
            counts[frozenset(team)] += 1
    return counts


@pytest.mark.rule("T2")
@pytest.mark.parametrize("players, rounds, tables", [(4, 12, 1), (8, 28, 2)])
def test_rotating_schedule_properties(players, rounds, tables):
    schedule = rotating_schedule(players)
    assert len(schedule) == rounds
    assert [r.round for r in schedule] == list(range(1, rounds + 1))
    everyone = set(range(players))
    for rnd in schedule:
        assert len(rnd.tables) == tables
        seated = [p for t in rnd.tables for p in t]
        assert len(seated) == len(set(seated)) and set(seated) == everyone  # tables disjoint
        for t in rnd.tables:
            assert len(t) == 4
            assert partners_opposite(t, ((t[0], t[2]), (t[1], t[3])))
    counts = _partner_counts(schedule)
    pairs = {frozenset(p) for p in itertools.combinations(range(players), 2)}
    assert set(counts) == pairs and set(counts.values()) == {4}
    # Partners change in blocks of 4 consecutive rounds (seed 003).
    for block in range(0, rounds, 4):
        assert len({schedule[i].tables for i in range(block, block + 4)}) == 1


@pytest.mark.rule("T2")
def test_rotating_eight_players_meet_varied_opponents():
    opp = Counter()
    for rnd in rotating_schedule(8)[::4]:
        for t in rnd.tables:
            for a in (t[0], t[2]):
                for b in (t[1], t[3]):
                    opp[frozenset((a, b))] += 1
    # Every pair of players is at the same table, as opponents, at least once.
    assert len(opp) == 28


@pytest.mark.rule("T2")
def test_rotating_cycles_and_bad_counts():
    assert len(rotating_schedule(4, cycles=2)) == 24
    for n in (2, 3, 5, 6, 10):
        with pytest.raises(ConfigError, match="4 or 8"):
            rotating_schedule(n)


@pytest.mark.rule("T2")
def test_rotating_match_individual_totals_decide():
    m = Match({"teams": "rotating", "players": 4})
    assert len(m.schedule) == 12
    for i, rnd in enumerate(m.schedule):
        (t,) = rnd.tables
        winner = t[i % 4]
        partner = t[(i % 4 + 2) % 4]
        hands = {s: ("red-5",) for s in t if s not in (winner, partner)}
        m.apply(RoundResult(seats=t, winner=winner, hands=hands))
    assert m.over and m.outcome.ended_by == "schedule"
    # Each round the winner and partner record 10 points each.
    assert sum(m.totals.values()) == 12 * 2 * 10
    best = max(m.totals.values())
    assert m.outcome.winners == tuple(s for s, t in m.totals.items() if t == best)
    assert m.summary().target is None


@pytest.mark.rule("T2")
def test_rotating_eight_players_two_tables_per_round():
    m = Match({"teams": "rotating", "players": 8})
    rnd = m.next_tables()
    assert len(rnd) == 2
    results = [
        RoundResult(seats=t, winner=t[0], hands={t[1]: ("wild",), t[3]: ("red-1",)}, table=i)
        for i, t in enumerate(rnd)
    ]
    with pytest.raises(MatchError, match="2 table"):
        m.apply(results[0])
    m.apply(results)
    for t in rnd:
        assert m.totals[t[0]] == 51 and m.totals[t[2]] == 51
        assert m.totals[t[1]] == 0 and m.totals[t[3]] == 0
    t0, t1 = m.next_tables()
    swapped = [(t0[0], t0[1], t0[2], t1[0]), (t0[3], t1[1], t1[2], t1[3])]
    with pytest.raises(MatchError, match="not a table of the schedule"):
        m.apply([RoundResult(seats=t, winner=t[0], hands={t[1]: (), t[3]: ()}) for t in swapped])
    # Right players, but partners side by side instead of opposite.
    beside = [(t[0], t[2], t[1], t[3]) for t in (t0, t1)]
    with pytest.raises(MatchError, match="opposite"):
        m.apply([RoundResult(seats=t, winner=t[0], hands={t[1]: (), t[3]: ()}) for t in beside])
    assert len(m.rounds) == 1


# --- T3 -------------------------------------------------------------------------------------


@pytest.mark.rule("T3")
def test_teams_by_draw_highest_with_lowest():
    d = draw_teams([{0: "red-2", 1: "blue-9", 2: "green-5", 3: "yellow-7"}])
    assert d.complete and d.ranking == (1, 3, 2, 0)
    assert d.teams == ((1, 0), (3, 2))
    assert partners_opposite(d.seating, d.teams)


@pytest.mark.rule("T3")
def test_action_and_wild_draws_have_no_number_and_redraw():
    d = draw_teams([{0: "red-skip", 1: "blue-9", 2: "wild", 3: "yellow-7"}])
    assert not d.complete and d.redraw == (0, 2)
    d = draw_teams(
        [{0: "red-skip", 1: "blue-9", 2: "wild", 3: "yellow-7"}, {0: "red-1", 2: "wild-draw4"}]
    )
    assert d.redraw == (2,)
    d = draw_teams(
        [
            {0: "red-skip", 1: "blue-9", 2: "wild", 3: "yellow-7"},
            {0: "red-1", 2: "wild-draw4"},
            {2: "green-8"},
        ]
    )
    assert d.complete and d.teams == ((1, 0), (2, 3))


@pytest.mark.rule("T3")
def test_ties_that_decide_teams_redraw_middle_tie_does_not():
    # Middle two tie: they are partners either way.
    d = draw_teams([{0: "red-9", 1: "blue-5", 2: "green-5", 3: "red-1"}])
    assert d.complete and d.teams[0] == (0, 3) and set(d.teams[1]) == {1, 2}
    # Top two tie: who partners the lowest depends on it -> only they redraw.
    d = draw_teams([{0: "red-9", 1: "blue-9", 2: "green-5", 3: "red-1"}])
    assert not d.complete and d.redraw == (0, 1)
    # The redraw only orders the tied seats among themselves: 1 stays above 2 with a 0.
    d = draw_teams([{0: "red-9", 1: "blue-9", 2: "green-5", 3: "red-1"}, {0: "red-3", 1: "blue-0"}])
    assert d.complete and d.ranking == (0, 1, 2, 3) and d.teams == ((0, 3), (1, 2))
    # An action card during a tie-break: wait for that seat's number before ordering.
    d = draw_teams(
        [{0: "red-9", 1: "blue-9", 2: "green-5", 3: "red-1"}, {0: "red-3", 1: "blue-skip"}]
    )
    assert not d.complete and d.redraw == (1,)
    d = draw_teams(
        [
            {0: "red-9", 1: "blue-9", 2: "green-5", 3: "red-1"},
            {0: "red-3", 1: "blue-skip"},
            {1: "red-4"},
        ]
    )
    assert d.complete and d.ranking[:2] == (1, 0)


@pytest.mark.rule("T3")
def test_draw_sequence_errors_and_odd_counts():
    with pytest.raises(ConfigError, match="even"):
        draw_teams([{0: "red-1", 1: "red-2", 2: "red-3"}])
    with pytest.raises(ConfigError, match="teams='by-draw' with players=5"):
        Match({"teams": "by-draw", "players": 5})
    with pytest.raises(TeamError, match="expected draws from seats \\[0, 1\\]"):
        draw_teams([{0: "red-9", 1: "blue-9", 2: "green-5", 3: "red-1"}, {0: "red-3", 2: "blue-0"}])
    with pytest.raises(TeamError, match="seat 2.*back"):
        draw_teams([{0: "red-9", 1: "blue-9", 2: "back", 3: "red-1"}])


@pytest.mark.rule("T3", "T1")
def test_match_with_teams_by_draw():
    draws = [{0: "red-2", 1: "blue-9", 2: "green-5", 3: "yellow-7"}]
    m = Match({"teams": "by-draw", "target": 50}, team_draws=draws)
    assert m.teams == ((1, 0), (3, 2))
    (seating,) = m.next_tables()
    m.apply(RoundResult(seats=seating, winner=0, hands={3: ("wild",), 2: ("red-4",)}))
    assert m.over and m.totals == {0: 54, 1: 0}
    with pytest.raises(ConfigError, match="must draw again"):
        Match({"teams": "by-draw"}, team_draws=[{0: "wild", 1: "red-1", 2: "red-2", 3: "red-3"}])
    with pytest.raises(ConfigError, match="team_draws"):
        Match({"teams": "by-draw"})
    with pytest.raises(ConfigError, match="players=6"):
        Match({"teams": "by-draw", "players": 6}, team_draws=draws)


@pytest.mark.rule("T3")
def test_six_players_by_draw_pairs_outside_in():
    d = draw_teams([{s: f"red-{v}" for s, v in enumerate([1, 6, 3, 8, 5, 2])}])
    assert d.ranking == (3, 1, 4, 2, 5, 0)
    assert d.teams == ((3, 0), (1, 5), (4, 2))
    assert partners_opposite(d.seating, d.teams)
