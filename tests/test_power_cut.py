"""Power cut: a table process killed with SIGKILL in the middle of a round loses nothing that
was logged, and starts again in the same state (events, hand counts, scores)."""

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from app.hub import TableHub
from table.log import EventLog
from table.referee import snapshot
from table.rules import preset
from table.simulator import Simulator

WRITER = textwrap.dedent(
    """
    import sys, time
    from app.hub import TableHub
    from table.log import EventLog
    from table.rules import preset
    from table.simulator import Simulator
    hub = TableHub(EventLog(sys.argv[1], preset("official"))).start()
    def report(inp):
        hub.submit(inp.to_dict(), source="host")
        print(len(hub.log), flush=True)
        time.sleep(0.005)
    sim = Simulator(preset("official"), seed=7, on_input=report)
    while True:
        sim.play_round()
    """
)


@pytest.mark.slow
def test_sigkill_mid_round_loses_nothing_logged_and_resumes_the_same_state(tmp_path):
    db = tmp_path / "match.db"
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(db)], stdout=subprocess.PIPE, text=True)
    last = 0
    try:
        for line in proc.stdout:
            last = int(line)
            if last >= 150:  # well into the first or second round
                break
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(10)
    assert proc.returncode == -signal.SIGKILL

    log = EventLog(db)
    kept = len(log)
    assert kept >= last  # every input the process reported as logged survived
    hub = TableHub(log)

    # The same seeded game, replayed in memory up to the same input, is the truth.
    truth = Simulator(preset("official"), seed=7)
    inputs = []
    truth.on_input = inputs.append
    while len(inputs) < kept:
        try:
            truth.play_round()
        except Exception:
            break
    from table.log import rebuild_state

    expected = rebuild_state(preset("official"), inputs[:kept])
    assert snapshot(hub.state) == snapshot(expected)
    assert hub.state.hands == expected.hands and hub.state.scores == expected.scores
    hub.close()
