"""The table asks the host when a camera reading is unsure (table/doubt.py decides, the hub
puts the question, one answer closes it as an amend), and verdicts name the players."""

import pytest

from app.hub import CommandError, TableHub
from app.observe import ObservationMapper
from table.doubt import doubt, legal_guess
from table.inputs import Play, Reveal, parse_input
from table.log import MemoryLog
from table.referee import new_state, step
from table.rules import preset
from table.wording import with_names

NAMES = ["Ana", "Ben", "Cleo", "Dev"]


def dealt():
    """Official rules, Ana deals, red 5 turned up: Ben plays first."""
    state = new_state(preset("official"))
    for inp in ({"kind": "start_round", "dealer": 0}, {"kind": "flip", "card": "red-5"}):
        state, _ = step(state, parse_input(inp))
    return state


def seen(*cards, frame=10, conf=None):
    """A discard observation: each card as (face, [[guess, p], ...])."""
    out = []
    for face, cands in cards:
        out.append({"card": face, "confidence": cands[0][1], "box": [100, 100, 160, 190],
                    "center": [130, 145], "candidates": [list(c) for c in cands]})
    c = conf if conf is not None else min(x["confidence"] for x in out)
    return {"kind": "observation",
            "observation": {"type": "discard", "cards": out, "frame": frame, "timestamp": frame / 10, "confidence": c}}


def hub_dealt(**kw) -> TableHub:
    hub = TableHub(MemoryLog(preset("official")), NAMES, **kw)
    hub.submit({"kind": "start_round", "dealer": 0})
    hub.submit({"kind": "flip", "card": "red-5"})
    return hub


# ----------------------------------------------------------------------------- the rules of doubt


def test_a_sure_legal_reading_raises_no_doubt():
    st = dealt()
    assert doubt(st, Play(("red-7",), candidates=((("red-7", 0.97), ("red-1", 0.02)),))) is None


def test_low_confidence_and_close_guesses_are_doubts():
    st = dealt()
    low = doubt(st, Play(("red-7",), candidates=((("red-7", 0.41), ("blue-7", 0.12)),)))
    assert low["tags"] == ["low"] and low["card"] == 0 and "0.41" in low["why"][0]
    close = doubt(st, Play(("red-7",), candidates=((("red-7", 0.85), ("red-1", 0.62)),)))
    assert close["tags"] == ["close"] and "red 1" in close["why"][0]


def test_an_illegal_face_whose_second_guess_is_legal_is_a_doubt_decided_by_the_referee():
    st = dealt()
    inp = Play(("blue-3",), candidates=((("blue-3", 0.9), ("red-3", 0.08)),))
    assert legal_guess(st, inp) == (0, 1, "red-3")
    d = doubt(st, inp)
    assert d["tags"] == ["illegal"] and "second guess red 3 would be" in d["why"][0]
    # an illegal play with no legal guess is a foul, not a doubt
    assert doubt(st, Play(("blue-3",), candidates=((("blue-3", 0.95), ("green-3", 0.03)),))) is None


def test_a_reveal_whose_count_disagrees_with_the_tracked_hand_is_a_doubt():
    st = dealt()
    st.phase, st.winner = "round-over", 1  # Ben went out
    d = doubt(st, Reveal(seat=2, cards=("red-1", "blue-2")))
    assert d["tags"] == ["count"] and d["card"] is None
    assert "2 cards revealed but seat 2 holds 7" in d["why"][0]


def test_names_replace_seats_and_words_replace_card_ids():
    assert with_names("seat 1 plays red-7, 6 left", NAMES) == "Ben plays red 7, 6 left"
    assert with_names("seats 0, 2 draw for dealer", NAMES) == "Ana and Cleo draw for dealer"
    assert with_names("PENALTY: seat 3 draws 4 (wild-draw4)", NAMES) == "PENALTY: Dev draws 4 (wild draw four)"
    assert with_names("seat 7 passes", NAMES) == "seat 7 passes"  # no such name: left as it is


def test_the_observer_hands_the_candidates_to_the_input():
    mapped, _ = ObservationMapper().to_input(seen(("red-7", [["red-7", 0.6], ["red-1", 0.3]]))["observation"], dealt())
    assert mapped["candidates"] == [[["red-7", 0.6], ["red-1", 0.3]]]


def test_a_card_back_among_the_guesses_is_no_answer_and_breaks_nothing():
    """The classifier knows the card back too; a play whose runner-up was 'back' is still a
    valid input (seen in a rendered game through the shipped model)."""
    obs = seen(("red-7", [["red-7", 0.89], ["back", 0.05], ["red-1", 0.03]]),
               ("red-2", [["back", 0.6]]))["observation"]
    mapped, _ = ObservationMapper().to_input(obs, dealt())
    assert mapped["candidates"] == [[["red-7", 0.89], ["red-1", 0.03]], [["red-2", 0.6]]]
    parse_input(mapped)  # valid


# ----------------------------------------------------------------------------- the hub asks


def test_an_unsure_camera_play_is_logged_marked_and_the_host_is_asked_with_names():
    hub = hub_dealt()
    hub.submit(seen(("red-7", [["red-7", 0.52], ["red-1", 0.41], ["red-4", 0.03]])), source="camera")
    entry = len(hub.log)
    assert hub.log.inputs()[-1].unsure["tags"] == ["low", "close"]
    (q,) = hub.questions()
    assert q["entry"] == entry and q["status"] == "open" and q["read"] == "red-7"
    assert q["question"] == "Was Ben's card red 7?"
    assert "Ben plays red 7" in q["text"]  # names, not seats
    assert [o["card"] for o in q["options"]] == ["red-7", "red-1", "red-4"]
    assert any(m["type"] == "question" and m["payload"]["entry"] == entry for m in hub.feed.all())
    assert hub.snapshot()["questions"] == 1
    # play goes on: Cleo plays while the question is open
    hub.submit(seen(("red-9", [["red-9", 0.97]]), frame=30), source="camera")
    assert hub.state.turn == 3 and len(hub.questions()) == 1


def test_one_tap_fixes_the_reading_as_an_amend_and_the_question_closes():
    hub = hub_dealt()
    hub.submit(seen(("red-7", [["red-7", 0.52], ["red-1", 0.41]])), source="camera")
    entry = len(hub.log)
    out = hub.submit({"kind": "answer", "entry": entry, "card": "red-1"}, source="host")
    assert out["answered"] == entry
    last = hub.log.inputs()[-1]
    assert last.kind == "amend" and last.target == entry and last.input["cards"] == ["red-1"]
    assert "unsure" not in last.input
    assert hub.snapshot()["top_card"] == "red-1"
    assert hub.questions() == []
    (q,) = hub.questions(include_closed=True)
    assert q["status"] == "answered" and q["answered_by"] == len(hub.log)


def test_a_tap_on_the_card_as_read_confirms_it():
    hub = hub_dealt()
    hub.submit(seen(("red-7", [["red-7", 0.45], ["red-1", 0.41]])), source="camera")
    hub.submit({"kind": "answer", "entry": len(hub.log), "card": "red-7"}, source="host")
    assert hub.snapshot()["top_card"] == "red-7" and hub.questions() == []


def test_a_question_answered_twice_or_by_a_non_host_is_refused():
    hub = hub_dealt()
    hub.submit(seen(("red-7", [["red-7", 0.52], ["red-1", 0.41]])), source="camera")
    entry = len(hub.log)
    for source in ("seat:1", "camera", "button"):
        with pytest.raises(CommandError, match="host command"):
            hub.submit({"kind": "answer", "entry": entry, "card": "red-1"}, source=source)
    hub.submit({"kind": "answer", "entry": entry, "card": "red-1"}, source="host")
    n = len(hub.log)
    with pytest.raises(CommandError, match="answered already"):
        hub.submit({"kind": "answer", "entry": entry, "card": "red-4"}, source="host")
    with pytest.raises(CommandError, match="has no question"):
        hub.submit({"kind": "answer", "entry": 1, "card": "red-4"}, source="host")
    hub.submit(seen(("red-9", [["red-9", 0.5], ["red-6", 0.45]]), frame=30), source="camera")
    with pytest.raises(CommandError, match="not a card"):
        hub.submit({"kind": "answer", "entry": len(hub.log), "card": "red-77"}, source="host")
    assert len(hub.log) == n + 1  # nothing logged by a refused answer


def test_a_host_correction_by_other_means_also_closes_the_question():
    hub = hub_dealt()
    hub.submit(seen(("red-7", [["red-7", 0.52], ["red-1", 0.41]])), source="camera")
    entry = len(hub.log)
    hub.submit({"kind": "undo", "target": entry}, source="host")
    (q,) = hub.questions(include_closed=True)
    assert q["status"] == "withdrawn"
    with pytest.raises(CommandError, match="withdrawn already"):
        hub.submit({"kind": "answer", "entry": entry, "card": "red-1"}, source="host")


def test_asking_can_be_turned_off():
    hub = hub_dealt(ask={"enabled": False})
    hub.submit(seen(("red-7", [["red-7", 0.3], ["red-1", 0.29]])), source="camera")
    assert hub.questions() == [] and hub.log.inputs()[-1].unsure is None


def test_verdicts_name_the_player_and_point_at_their_log_entry():
    hub = hub_dealt()
    hub.submit(seen(("red-7", [["red-7", 0.98]])), source="camera")
    (v,) = hub.snapshot()["verdicts"]
    assert v["text"].startswith("Ben plays red 7") and v["entry"] == len(hub.log)
    events = [m["payload"]["text"] for m in hub.feed.all() if m["type"] == "play_accepted"]
    assert events and events[-1].startswith("Ben plays red 7")


def test_a_marked_moment_is_kept_and_naming_the_player_amends_the_play():
    hub = TableHub(MemoryLog(preset("party")), NAMES)  # jump-in on
    hub.submit({"kind": "start_round", "dealer": 0})
    hub.submit({"kind": "flip", "card": "red-5"})
    hub.submit(seen(("red-7", [["red-7", 0.98]])), source="camera")  # Ben plays red 7
    hub.submit(seen(("red-7", [["red-7", 0.98]]), frame=40), source="camera")  # its twin: read as Cleo's
    entry = len(hub.log)
    out = hub.submit({"kind": "mark", "entry": entry, "text": "that was a jump-in by Dev", "frame": 3, "seat": 3},
                     source="host")
    assert out["mark"]["text"] == "that was a jump-in by Dev"
    last = hub.log.inputs()[-1]
    assert last.kind == "amend" and last.input["seat"] == 3
    assert any(m["type"] == "mark" and "jump-in by Dev" in m["payload"]["text"] for m in hub.feed.all())
    with pytest.raises(CommandError, match="must say what happened"):
        hub.submit({"kind": "mark", "entry": entry, "text": " "}, source="host")
    with pytest.raises(CommandError, match="host command"):
        hub.submit({"kind": "mark", "entry": entry, "text": "x"}, source="seat:1")
