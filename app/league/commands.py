"""`uno-table league` (the consumer and its page), the table side of `run --league`, and
`demo --tables N` (simulated tables, a local broker, the league page beside them)."""

from __future__ import annotations

import argparse
import json
import logging
import sys
import threading
import time
from pathlib import Path
from typing import Any

from table.errors import ConfigError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "league",
        help="the league: every table's log over MQTT, standings, a page for a phone or TV",
        description="Subscribe to every table on an MQTT broker (Mosquitto), keep standings in "
        "an SQLite store, and serve the League page. Restart it at any moment: it rebuilds from "
        "its store and the tables' retained states, and asks the tables for what it missed.",
    )
    p.add_argument("--broker", help="mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (default: league.broker of the config)")
    p.add_argument("--config", type=Path, help="uno-table.yaml whose league section gives the broker and credentials")
    p.add_argument("--match", help="only this match (default: every match on the broker)")
    p.add_argument("--expect", default="", help="table names the league should hear from, comma separated")
    p.add_argument("--by", choices=("total", "wins"), default="total", help="club standings by total points or by matches won")
    p.add_argument("--store", type=Path, help="the league's SQLite (default: <data dir>/league.db)")
    p.add_argument("--name", default="league", help="this league's MQTT client name (unique per broker)")
    p.add_argument("--host", default="0.0.0.0", help="league page address")
    p.add_argument("--port", type=int, default=8000, help="league page port")
    add_auth_args(p)
    p.set_defaults(func=cmd_league)


def add_auth_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--username", help="broker user name")
    p.add_argument("--password", help="broker password (better: $UNO_TABLE_MQTT_PASSWORD)")
    p.add_argument("--tls-ca", type=Path, help="CA bundle that signed the broker's certificate (turns TLS on)")
    p.add_argument("--tls-cert", type=Path, help="client certificate, for brokers that ask for one")
    p.add_argument("--tls-key", type=Path, help="the client certificate's key")
    p.add_argument("--tls-insecure", action="store_true", help="do not check the broker's host name (testing only)")


def _auth(args, base: dict[str, Any] | None = None) -> dict[str, Any]:
    out = dict(base or {})
    if getattr(args, "username", None):
        out["username"] = args.username
    if getattr(args, "password", None):
        out["password"] = args.password
    tls = dict(out.get("tls") or {})
    for arg, key in (("tls_ca", "ca_certs"), ("tls_cert", "certfile"), ("tls_key", "keyfile")):
        if getattr(args, arg, None) is not None:
            tls[key] = getattr(args, arg)
    if getattr(args, "tls_insecure", False):
        tls["insecure"] = True
    if tls:
        out["tls"] = tls
    return out


def _logging() -> None:
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.INFO, format="uno-table: %(message)s")
    logging.getLogger("uno_table.league").setLevel(logging.INFO)


# ----------------------------------------------------------------------------- league


def cmd_league(args) -> int:
    from app.commands import _Shutdown
    from app.league.league import League
    from app.league.mqtt import league_config
    from table.paths import data_dir
    from web_ui.league import start_league_dashboard

    _logging()
    base: dict[str, Any] = {}
    if args.config is not None or Path("uno-table.yaml").exists():
        from app.config import load_app_config

        cfg = load_app_config(args.config or Path("uno-table.yaml"))
        if cfg.league is not None:
            base = cfg.league.model_dump(exclude_none=True, exclude={"table", "part", "keepalive"})
    if args.broker:
        base["broker"] = args.broker
    if "broker" not in base:
        raise ConfigError("league: say which broker: --broker mqtt://HOST[:PORT] (or league.broker in the config)")
    settings = league_config(_auth(args, base))
    store = args.store or data_dir() / "league.db"
    expect = tuple(x.strip() for x in args.expect.split(",") if x.strip())
    league = League(settings.url, store, match=args.match, expect=expect, by=args.by,
                    username=settings.username, password=settings.password, tls=settings.tls,
                    name=args.name).start()  # fmt: skip
    print(f"League: {settings.url}, store {store}" + (f", match {args.match}" if args.match else ""))
    shutdown = _Shutdown()
    page = start_league_dashboard(league, host=args.host, port=args.port)
    try:
        shutdown.wait()
    finally:
        page.close()
        league.stop()
    return 0


# ----------------------------------------------------------------------------- run --league


def add_run_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--league", metavar="URL", help="publish this table to a league broker: mqtt://HOST[:PORT]")
    p.add_argument("--table", help="this table's name in the league (with --league)")
    p.add_argument("--match", help="the league match or club night it plays in (default: club)")
    p.add_argument("--part", type=int, choices=(0, 1),
                   help="8 players, rotating partners at two tables: this is table 0 or 1 of the schedule")  # fmt: skip


def league_overrides(args) -> dict[str, Any] | None:
    """The command line's league settings, to lay over the config file's `league:`."""
    out: dict[str, Any] = {}
    for key in ("league", "table", "match", "part"):
        value = getattr(args, key, None)
        if value is not None:
            out["broker" if key == "league" else key] = value
    return out or None


def start_publisher(hub, league, dashboard: str | None):
    """The table side: publish `hub`'s log (run --league)."""
    from app.league.publisher import TablePublisher

    _logging()
    return TablePublisher(hub, league, dashboard=dashboard).start()


# ----------------------------------------------------------------------------- demo --tables


def add_demo_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tables", type=int, default=0,
                   help="simulated tables publishing to a league (2: one 8-player rotating match at two "
                        "tables; N: a club of N tables); starts mosquitto unless --broker is given")  # fmt: skip
    p.add_argument("--broker", help="with --tables: use this broker instead of starting mosquitto")
    p.add_argument("--club", action="store_true", help="with --tables 2: two tables each playing its own matches")
    p.add_argument("--pace", type=float, default=None,
                   help="with --tables: seconds between two inputs at a table (default 0.3; 0 headless)")  # fmt: skip


def demo_tables(args) -> int:
    """`uno-table demo --tables N`."""
    from app.commands import _Shutdown
    from app.league.broker import BrokerMissing, LocalBroker
    from app.league.league import League
    from app.league.mqtt import LeagueConfig
    from app.league.publisher import TablePublisher
    from app.league.sim import EIGHT, SimTable, club_players, scores_from_logs
    from table.paths import data_dir

    n = args.tables
    if not 1 <= n <= 200:
        raise ConfigError(f"--tables {n}: between 1 and 200 simulated tables")
    _logging()
    broker = None
    url = args.broker
    if url is None:
        try:
            broker = LocalBroker().start()
        except BrokerMissing as exc:
            print(f"uno-table demo: {exc}", file=sys.stderr)
            return 2
        url = broker.url
        print(f"Broker: mosquitto on {url}")
    two_table = n == 2 and not args.club
    match = "demo" if two_table else "club"
    folder = data_dir() / "demo-league" / time.strftime("%Y%m%d-%H%M%S")
    pace = args.pace if args.pace is not None else (0.0 if args.headless else 0.3)
    names = [f"T{i + 1}" for i in range(n)]
    league = League(url, folder / "league.db", expect=tuple(f"{match}/{x}" for x in names), name=f"league-{folder.name}")
    league.start()
    tables, pubs, dashes = [], [], []
    stop = threading.Event()
    page = None
    try:
        for i, name in enumerate(names):
            part = i if two_table else None
            players = EIGHT if two_table else club_players(i)
            t = SimTable(folder / name, name, players, part=part, preset=args.preset if not two_table else "official",
                         seed=args.seed * 1000 + i, pace=pace)  # fmt: skip
            dash_url = None
            if not args.headless and n <= 8:
                from web_ui.launch import start_dashboard

                d = start_dashboard(t.hub, host=args.host, port=args.port + 1 + i, out=lambda s: None)
                dashes.append(d)
                dash_url = d.url
            cfg = LeagueConfig(broker=url, table=name, match=match, part=part)
            pubs.append(TablePublisher(t.hub, cfg, dashboard=dash_url).start())
            tables.append(t)
        if not args.headless:
            from web_ui.league import start_league_dashboard

            page = start_league_dashboard(league, host=args.host, port=args.port)
        rounds = args.rounds
        for t in tables:
            t.start(stop, rounds=rounds, matches=1 if (two_table or args.headless) else None)
        if args.headless:
            for t in tables:
                t.done.wait()
            deadline = time.monotonic() + 60
            want = {f"{match}/{t.name}/{Path(t.hub.log.path).stem}": len(t.hub.log) for t in tables}
            while time.monotonic() < deadline:
                counted = league.counted()
                if all(counted.get(k, 0) >= v for k, v in want.items()):
                    break
                time.sleep(0.1)
            time.sleep(0.5)  # the batch that counted the last entry commits its standings
            logs = {t.name: [Path(t.hub.log.path)] for t in tables}
            truth = scores_from_logs(logs)
            got = league.match_totals(match)
            errors = [f"{t.name}: {t.error!r}" for t in tables if t.error is not None]
            out = {
                "tables": n, "match": match, "kind": "two-table" if two_table else "club",
                "rounds": {t.name: t.rounds_played for t in tables},
                "entries": {k: v for k, v in want.items()},
                "league_totals": got, "log_totals": truth,
                "league_matches_logs": got == truth and not errors,
                "counters": league.counters, "errors": errors,
            }  # fmt: skip
            print(json.dumps(out) if args.json else _demo_text(out))
            return 0 if out["league_matches_logs"] else 1
        print("Simulated tables are playing; Ctrl-C stops the demo")
        _Shutdown().wait()
        return 0
    finally:
        stop.set()
        for p in pubs:
            p.stop(timeout=2.0)
        for d in dashes:
            d.close()
        if page is not None:
            page.close()
        league.stop()
        for t in tables:
            t.close()
        if broker is not None:
            broker.stop()


def _demo_text(out: dict[str, Any]) -> str:
    lines = [f"{out['tables']} tables ({out['kind']}), rounds {out['rounds']}"]
    for player, total in sorted(out["league_totals"].items(), key=lambda kv: -kv[1]):
        lines.append(f"  {player:<10} {total:>6}   (from the logs: {out['log_totals'].get(player)})")
    lines.append(f"league equals the tables' logs: {out['league_matches_logs']}")
    lines.extend(f"  error: {e}" for e in out["errors"])
    return "\n".join(lines)
