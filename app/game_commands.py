"""`uno-table simulate` and `uno-table replay`."""

from __future__ import annotations

import argparse
import json

from table.errors import LogError


def _add_rules_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--preset", default="official",
        help="rules preset: official, two-player, seed-house, no-mercy-lite, party (table/PRESETS.md)",
    )  # fmt: skip
    p.add_argument("--rules", metavar="YAML", help="rules file (may name its own 'preset:')")
    p.add_argument(
        "--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
        help="override one option, e.g. --set uno.strict=true (repeatable)",
    )  # fmt: skip


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("simulate", help="play simulated games through the referee and time them")
    p.add_argument("--players", type=int, default=None, help="seats (default: the preset's)")
    p.add_argument("--games", type=int, default=200, help="rounds to play (default 200)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--policy", action="append", choices=["random", "greedy"], default=None,
                   help="seat policy, repeat to give seats different ones (default random)")
    p.add_argument("--forget-uno", type=float, default=0.0, metavar="RATE",
                   help="probability that a player forgets to call UNO")
    p.add_argument("--save", metavar="DB", help="also write the first game's inputs to this log file")
    p.add_argument("--match", action="store_true",
                   help="play one whole match (to the target of the rules' format) and print its summary")
    p.add_argument("--max-rounds", type=int, default=1000, metavar="N",
                   help="with --match: stop a match still running after N rounds (reported)")
    p.add_argument("--progress", action="store_true", help="show a progress bar")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--csv", action="store_true",
                   help="with --match: print the scores as CSV (the dashboard's download, same writer)")
    _add_rules_args(p)
    p.set_defaults(func=_simulate)

    p = sub.add_parser("replay", help="print a logged game as readable lines")
    p.add_argument("db", help="the SQLite log file")
    p.add_argument("--json", action="store_true", help="one JSON object per line (input, events)")
    p.set_defaults(func=_replay)


def _simulate(args: argparse.Namespace) -> int:
    from table.errors import ConfigError
    from table.rules import load_rules
    from table.simulator import SimOptions, Simulator, simulate

    overrides = list(args.overrides)
    if args.players is not None:
        overrides.append(f"players={args.players}")
    rules = load_rules(args.preset, path=args.rules, overrides=overrides or None)
    if args.games < 1:
        raise ConfigError(f"--games must be at least 1, got {args.games}")
    if not 0.0 <= args.forget_uno <= 1.0:
        raise ConfigError(f"--forget-uno must be between 0 and 1, got {args.forget_uno}")
    opts = SimOptions(policies=tuple(args.policy or ["random"]), forget_uno=args.forget_uno)
    if args.match:
        return _simulate_match(args, rules, opts)
    if args.csv:
        raise ConfigError("--csv prints a match's scores: add --match")
    result = simulate(rules, args.games, seed=args.seed, options=opts, progress=args.progress)
    if args.save:
        from table.log import EventLog

        with EventLog(args.save, rules) as log:
            if len(log):
                raise LogError(f"{args.save}: already holds a game; choose a new file")
            Simulator(rules, seed=args.seed * 1_000_003, options=opts, on_input=log.append).play_round()
        result["saved"] = args.save
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{result['games']} games, {result['players']} players, preset {result['preset']}, "
            f"seed {result['seed']}: {result['games_per_s']} games/s, "
            f"{result['turns_per_game']} turns/game, {result['inputs_per_game']} inputs/game, "
            f"wins by seat {result['wins_by_seat']}"
            + (f", {result['capped_games']} games hit the input cap" if result["capped_games"] else "")
        )
        if args.save:
            print(f"first game saved to {args.save} (uno-table replay {args.save})")
    return 0


def _simulate_match(args: argparse.Namespace, rules, opts) -> int:
    from table.errors import ConfigError
    from table.simulator import simulate_match

    if args.max_rounds < 1:
        raise ConfigError(f"--max-rounds must be at least 1, got {args.max_rounds}")
    result = simulate_match(rules, seed=args.seed, options=opts, max_rounds=args.max_rounds)
    summary = result.pop("summary")
    if args.csv:
        if summary is not None:
            print(summary.to_csv(), end="")
        return 0
    if args.json:
        result["summary"] = summary.model_dump(mode="json") if summary is not None else None
        print(json.dumps(result))
        return 0
    print(
        f"match, preset {result['preset']}, {result['players']} players, seed {result['seed']}: "
        f"{result['rounds']} rounds, {result['inputs']} inputs in {result['seconds']} s"
        + ("" if result["over"] else f" -- stopped after {result['rounds']} rounds, not over")
    )
    if summary is not None:
        print(summary.to_text())
    return 0


def _replay(args: argparse.Namespace) -> int:
    try:
        return _replay_lines(args)
    except BrokenPipeError:  # `uno-table replay game.db | head`
        return 0


def _replay_lines(args: argparse.Namespace) -> int:
    from pathlib import Path

    from table.inputs import InputError
    from table.log import EventLog
    from table.referee import check_input, new_state, snapshot, step

    if not Path(args.db).exists():
        raise LogError(f"{args.db}: no such log file")
    with EventLog(args.db, create=False) as log:
        rules = log.rules
        inputs = log.inputs()
    state = new_state(rules)
    if not args.json:
        print(f"log {args.db}: {len(inputs)} inputs, rules {rules.name!r}, {rules.players} players")
    for seq, inp in enumerate(inputs, 1):
        try:
            check_input(state, inp)
        except InputError as exc:
            raise LogError(f"{args.db}: entry {seq} cannot be replayed: {exc}") from None
        state, events = step(state, inp)
        if args.json:
            print(json.dumps({"seq": seq, "input": inp.to_dict(), "events": [e.to_dict() for e in events]}))
            continue
        print(f"#{seq} {_describe(inp)}")
        for e in events:
            print(f"    {e.text()}")
    snap = snapshot(state)
    if args.json:
        print(json.dumps({"snapshot": snap}))
    else:
        print(
            f"end: round {snap['round']}, phase {snap['phase']}, hand counts {snap['hand_counts']}, "
            f"scores {snap['scores']}"
        )
    return 0


def _describe(inp) -> str:
    d = inp.to_dict()
    kind = d.pop("kind")
    return kind + (" " + " ".join(f"{k}={v}" for k, v in d.items()) if d else "")
