"""Benchmark: the referee + simulator against RLCard 1.2.0 in the same run, and replay time.

Run as a script (not collected by pytest):

    python tests/bench/bench_referee.py [--games 1000] [--rounds 5] [--json]

Figures printed:
- games/s of `table.simulator.simulate` (4 players, preset official, random legal policy,
  every rule checked, every input logged in memory) and of RLCard's UnoGame playing random
  legal moves (its raw game loop, and its `env.run` with RandomAgents), measured in
  alternating rounds so both see the same machine load; the median of each is reported.
- time to open an SQLite log of >= 10,000 inputs and rebuild the state from it (checked
  replay, as `Session` does on start), and the plain replay of the same inputs.
- the cost of one logged input with synchronous=FULL (what a live table pays per input).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.session import Session  # noqa: E402
from table.log import EventLog, rebuild_state  # noqa: E402
from table.referee import replay  # noqa: E402
from table.rules import load_rules, preset  # noqa: E402
from table.simulator import SimOptions, Simulator, simulate  # noqa: E402


def rlcard_raw(games: int, seed: int) -> tuple[float, float]:
    import numpy as np
    from rlcard.games.uno.game import UnoGame

    game = UnoGame(num_players=4)
    game.np_random = np.random.RandomState(seed)
    turns = 0
    t0 = time.perf_counter()
    for _ in range(games):
        game.init_game()
        while not game.is_over():
            legal = game.get_legal_actions()
            game.step(legal[game.np_random.randint(len(legal))])
            turns += 1
    return games / (time.perf_counter() - t0), turns / games


def rlcard_env(games: int, seed: int) -> float:
    import rlcard
    from rlcard.agents import RandomAgent

    env = rlcard.make("uno", config={"game_num_players": 4, "seed": seed})
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(4)])
    t0 = time.perf_counter()
    for _ in range(games):
        env.run(is_training=False)
    return games / (time.perf_counter() - t0)


def replay_figures(min_inputs: int) -> dict:
    rules = load_rules("official", overrides={"scoring": {"target": 100000}})
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "long.db"
        log = EventLog(path, rules)
        opts = SimOptions(forget_uno=0.2, challenge_rate=0.5, bluff_rate=0.2, voluntary_draw=0.05)
        sim = Simulator(rules, seed=7, options=opts, on_input=log.append)
        rounds = 0
        while len(log) < min_inputs:
            sim.play_round()
            rounds += 1
        n = len(log)
        log.close()
        t0 = time.perf_counter()
        log = EventLog(path)
        inputs = log.inputs()
        t_read = time.perf_counter() - t0
        state = rebuild_state(log.rules, inputs, str(path))
        t_checked = time.perf_counter() - t0
        log.close()
        t1 = time.perf_counter()
        plain = replay(rules, inputs)
        t_plain = time.perf_counter() - t1
        assert state == plain == sim.state, "replay differs from the live state"
        # one live input through a Session: parse, check, commit with fsync, apply
        session = Session(log=EventLog(Path(tmp) / "live.db", preset("official")))
        session.submit({"kind": "start_round", "dealer": 0})
        session.submit({"kind": "flip", "card": "blue-5"})
        k = 200
        t2 = time.perf_counter()
        for _ in range(k):
            session.submit({"kind": "call_uno", "seat": 0})  # a false call each time: a penalty
        t_live = (time.perf_counter() - t2) / k
        session.close()
    return {
        "log_inputs": n,
        "log_rounds": rounds,
        "read_s": round(t_read, 4),
        "open_and_rebuild_s": round(t_checked, 4),
        "replay_only_s": round(t_plain, 4),
        "live_input_ms": round(t_live * 1000, 3),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1000, help="games per measurement round")
    ap.add_argument("--rounds", type=int, default=5, help="alternating measurement rounds")
    ap.add_argument("--replay-inputs", type=int, default=10000)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rules = preset("official")
    ours, raw, env = [], [], []
    turns_ours = turns_rl = 0.0
    for r in range(args.rounds):
        res = simulate(rules, args.games, seed=r)
        ours.append(res["games_per_s"])
        turns_ours = res["turns_per_game"]
        g, turns_rl = rlcard_raw(args.games, seed=r)
        raw.append(g)
        env.append(rlcard_env(max(args.games // 4, 50), seed=r))
    figures = {
        "games_per_round": args.games,
        "rounds": args.rounds,
        "ours_games_per_s": round(statistics.median(ours), 1),
        "rlcard_raw_games_per_s": round(statistics.median(raw), 1),
        "rlcard_env_games_per_s": round(statistics.median(env), 1),
        "ratio_vs_rlcard_raw": round(statistics.median(o / g for o, g in zip(ours, raw, strict=True)), 2),
        "ours_turns_per_game": turns_ours,
        "rlcard_turns_per_game": round(turns_rl, 2),
        "replay": replay_figures(args.replay_inputs),
    }
    if args.json:
        print(json.dumps(figures))
        return 0
    rp = figures["replay"]
    print(f"simulate (4 players, official, every rule checked, inputs logged in memory): "
          f"{figures['ours_games_per_s']} games/s, {turns_ours} turns/game")
    print(f"RLCard 1.2.0 UnoGame, random legal moves:   {figures['rlcard_raw_games_per_s']} games/s, "
          f"{figures['rlcard_turns_per_game']} turns/game")
    print(f"RLCard 1.2.0 env.run with RandomAgents:     {figures['rlcard_env_games_per_s']} games/s")
    print(f"ours / RLCard (median of {args.rounds} alternating rounds): {figures['ratio_vs_rlcard_raw']}x")
    print(f"replay: {rp['log_inputs']} inputs ({rp['log_rounds']} rounds) from SQLite: open + read "
          f"{rp['read_s']} s, open + read + checked rebuild {rp['open_and_rebuild_s']} s "
          f"(target < 0.5 s); replay alone {rp['replay_only_s']} s")
    print(f"live input (parse, check, commit with fsync, apply): {rp['live_input_ms']} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
