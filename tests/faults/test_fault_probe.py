"""The probe of issue 16, a short bounded run: every POST endpoint's fields fuzzed with
hypothesis against the real hub and its SQLite log. No 5xx, no non-finite number in any
JSON the server sends, and the log replays to the state the table shows.
`python tools/probe.py fuzz --seconds 600` is the long run."""

from __future__ import annotations

import os

from tools.probe import fuzz


def test_a_short_fuzz_of_every_post_endpoint_finds_nothing(tmp_path):
    seconds = float(os.environ.get("UNO_PROBE_SECONDS", "15"))
    result = fuzz(seconds, seed=int(os.environ.get("UNO_PROBE_SEED", "0")), folder=tmp_path)
    print("\nprobe:", result)
    assert result["requests"] > 100 and result["replays_to_live_state"]
