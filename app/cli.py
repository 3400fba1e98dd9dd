"""The `uno-table` command.

Each top folder contributes its own subcommands through a module with a
`register(subparsers)` function. They are imported by name here, so `table/` never imports
camera, GPIO or HTTP code itself, and a command whose extra dependencies are missing says
so instead of breaking the others.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# Modules that add subcommands. Order decides the order in `--help`.
COMMAND_MODULES = [
    "app.game_commands",  # simulate, replay
    "app.commands",  # run, demo
    "app.league.commands",  # league
    "vision.commands",  # detect, watch, bench, mat
    "app.deck_commands",  # deck learn, fit, list, show, remove
    "firmware_config.commands",  # doctor, wiring
    "models.commands",  # (training lives in `python -m models ...`)
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="uno-table",
        description="A referee, camera and dashboard for a real UNO game on a real table.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            # A folder that does not provide commands yet, or whose optional dependency is
            # missing: only a missing *command module* is silent; anything else is reported.
            if exc.name == name:
                continue
            print(f"uno-table: commands from {name} unavailable: {exc}", file=sys.stderr)
            continue
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # noqa: BLE001 - last line of defence: a message, not a trace
        from table.errors import UnoTableError

        if isinstance(exc, UnoTableError):
            print(f"uno-table {args.command}: {exc}", file=sys.stderr)
            return 2
        raise


if __name__ == "__main__":
    sys.exit(main())
