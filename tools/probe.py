"""Probe the running table the way a hostile guest or a clumsy host would (issue 16).

    python tools/probe.py fuzz --seconds 60      # hypothesis fuzz of every POST endpoint
    python tools/probe.py loris --seconds 10     # one hostile client beside 20 phones
    python tools/probe.py kills --kills 5        # SIGKILL `uno-table run` under load, restart

fuzz: the dashboard over the real hub and its SQLite match log (Flask's test client, no
sockets), every POST endpoint's fields drawn by hypothesis, valid and hostile values mixed
(NaN, Infinity, 1e400, 2**70, control characters, deep nesting, wrong types). Asserts: no
5xx, no non-finite number in any JSON the server sends (the browsers' JSON.parse refuses
them), and the current match's log replays to the state the live table shows.

loris: waitress as `run` serves it; one address opens hundreds of half-sent requests and
trickles a byte into each; 20 phones on other addresses time their requests.

kills: `uno-table run` on a fresh data dir gets inputs over HTTP and is SIGKILLed at random
moments, then restarted: it must resume the same match with every acknowledged input.

Each prints one JSON line of figures. `tests/faults/test_fault_probe.py` runs a short fuzz.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import fields
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PIN = "135791"
SEATS = 3
NAMES = ["Ana", "Ben", "Cleo"]


def strict_json(text: str):
    """Parse as a browser would: NaN, Infinity and -Infinity are errors."""

    def refuse(name):
        raise ValueError(f"non-finite number {name} in the server's JSON")

    return json.loads(text, parse_constant=refuse)


# ----------------------------------------------------------------------------- strategies


def strategies():
    from hypothesis import strategies as st

    from table.cards import CARD_IDS
    from table.inputs import INPUT_TYPES

    cards = st.sampled_from(sorted(set(CARD_IDS)))
    hostile_text = st.text(
        st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40
    ) | st.sampled_from(["", " ", "\n", "Ana\nBen", "\x00", "\u202e", "=HYPERLINK(\"x\")", "A" * 600, "seat:²"])
    numbers = (
        st.integers(-(2**70), 2**70)
        | st.floats(allow_nan=True, allow_infinity=True)
        | st.sampled_from([0, 1, -1, 0.5, 1e100, 1e400, 2**53 + 1, 10**30])
    )
    leaf = st.none() | st.booleans() | numbers | hostile_text
    anything = st.recursive(leaf, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(hostile_text, inner, max_size=4), max_leaves=12)

    good = {
        "seat": st.integers(0, SEATS - 1),
        "target": st.integers(0, 40),
        "dealer": st.integers(0, SEATS - 1),
        "winner": st.integers(0, SEATS - 1),
        "card": cards,
        "cards": st.lists(cards, min_size=1, max_size=2),
        "colour": st.sampled_from(["red", "yellow", "green", "blue"]),
        "gesture": st.sampled_from(["press", "double", "hold"]),
        "at": st.floats(0, 1e6),
        "confidence": st.floats(0, 1),
        "frame": st.integers(0, 10**6),
        "count": st.integers(0, 8),
        "challenge": st.booleans(),
        "roll": st.floats(0, 0.99),
        "reason": st.text(max_size=20),
        "rule": st.sampled_from(["P8", "U2"]),
        "source": st.just("host"),
    }

    def field_value(name):
        return st.one_of(good.get(name, anything), good.get(name, anything), anything)

    def referee_input(kind):
        cls = INPUT_TYPES[kind]
        names = [f.name for f in fields(cls)]
        return st.fixed_dictionaries({"kind": st.just(kind)}, optional={n: field_value(n) for n in names})

    amend = st.fixed_dictionaries(
        {"kind": st.just("amend"), "target": st.integers(1, 30),
         "input": st.sampled_from(sorted(set(INPUT_TYPES) - {"amend", "undo"})).flatmap(referee_input)}
    )  # fmt: skip
    observation = st.fixed_dictionaries(
        {"kind": st.just("observation"),
         "observation": st.one_of(
             anything,
             st.fixed_dictionaries({"type": st.sampled_from(["discard", "reveal", "draw", "covered"]),
                                    "cards": st.lists(st.fixed_dictionaries({"card": cards | anything}), max_size=3),
                                    "frame": numbers, "confidence": numbers}),
         )}
    )  # fmt: skip
    players = st.lists(
        st.one_of(hostile_text, st.fixed_dictionaries({"seat": st.integers(0, 9)}, optional={"name": hostile_text})),
        min_size=0, max_size=11,
    )  # fmt: skip
    host_command = st.one_of(
        st.sampled_from(sorted(INPUT_TYPES)).flatmap(referee_input),
        st.sampled_from(sorted(INPUT_TYPES)).flatmap(referee_input),
        amend,
        observation,
        st.fixed_dictionaries({"kind": st.sampled_from(["setup", "rules", "new-match"])},
                              optional={"players": players | anything, "preset": st.sampled_from(["official", "party", "nope"]) | anything,
                                        "rules": anything | st.just({"house": {"stack_draw2": True}})}),  # fmt: skip
        st.fixed_dictionaries({"kind": st.sampled_from(["start", "pause", "resume", "end-round"])},
                              optional={"winner": numbers, "reason": hostile_text}),  # fmt: skip
        st.dictionaries(hostile_text, anything, max_size=4),
    )
    seat_action = st.fixed_dictionaries(
        {}, optional={"action": st.sampled_from(["uno", "catch", "challenge", "accept", "draw", "pass", "colour"]) | anything,
                      "colour": st.sampled_from(["red", "blue"]) | anything, "extra": anything},
    )  # fmt: skip
    panel = st.fixed_dictionaries(
        {}, optional={"target": st.sampled_from(["seat:0", "seat:2", "colour:red", "seat:²", "seat:99"]) | hostile_text | anything,
                      "gesture": st.sampled_from(["press", "hold", "double"]) | anything},
    )  # fmt: skip
    raw = st.one_of(
        st.binary(max_size=200),
        st.sampled_from([b"", b"null", b"[]", b'{"pin": NaN}', b'{"kind": "tick", "at": Infinity}',
                         b'{"kind": "tick", "at": 1e999}', b"[" * 30000 + b"]" * 30000, b'{"a":' * 5000 + b"1" + b"}" * 5000,
                         b'{"kind": "play", "cards": ["red-7"], "frame": ' + b"9" * 5000 + b"}"]),
    )  # fmt: skip
    return {"host_command": host_command, "seat_action": seat_action, "panel": panel, "raw": raw,
            "login": st.fixed_dictionaries({}, optional={"pin": hostile_text | anything | st.just(PIN)}),
            "pin": st.fixed_dictionaries({}, optional={"pin": hostile_text | anything})}  # fmt: skip


# ----------------------------------------------------------------------------- fuzz


def _make_table(folder: Path):
    from app.hub import TableHub
    from app.matchfiles import MatchStore
    from table.rules import load_rules
    from web_ui.app import create_app

    store = MatchStore(folder)
    rules = load_rules("official", overrides={"players": SEATS})
    record, log = store.new_match(rules, NAMES)
    hub = TableHub(log, record.players, matches=store, seat_tokens=record.seat_tokens).start()
    hub.panel = _Panel(hub)
    app = create_app(hub, host_pin=PIN, seat_tokens=hub.seat_tokens, public_url="http://192.168.1.20:8000")
    return store, hub, app


class _Panel:
    """A stand-in for the mock-GPIO panel: presses become seat gestures, like the real one."""

    def __init__(self, hub):
        self.hub = hub

    def describe(self):
        return {"seats": [{"seat": i, "name": n} for i, n in enumerate(self.hub.names)],
                "colours": ["red", "yellow", "green", "blue"], "gestures": ["press", "hold", "double"], "patterns": []}  # fmt: skip

    def press(self, target, gesture):
        head, _, tail = target.partition(":")
        if head == "seat":
            cmd = {"kind": "gesture", "seat": int(tail), "gesture": gesture, "at": time.monotonic()}
        else:
            cmd = {"kind": "colour", "colour": tail}
        return self.hub.submit(cmd, source="button")


def fuzz(seconds: float, seed: int = 0, folder: Path | None = None, examples_per_round: int = 25) -> dict:
    """Fuzz for about `seconds`; returns the figures. Raises AssertionError on a finding."""
    import logging

    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as hseed
    from hypothesis import strategies as st

    from table.log import EventLog, rebuild_state
    from table.referee import snapshot

    logging.getLogger("uno_table.dashboard").setLevel(logging.CRITICAL)  # the fuzz's own wrong PINs
    tmp = None
    if folder is None:
        tmp = tempfile.TemporaryDirectory(prefix="uno-probe-")
        folder = Path(tmp.name)
    store, hub, app = _make_table(folder)
    client = app.test_client()
    csrf = client.post("/api/login", json={"pin": PIN}).get_json()["csrf"]
    strat = strategies()
    stats: Counter = Counter()
    findings: list[str] = []
    state = {"csrf": csrf}

    def check(resp, what):
        stats["requests"] += 1
        stats[f"status {resp.status_code}"] += 1
        if resp.status_code >= 500:
            findings.append(f"{what} -> {resp.status_code}: {resp.get_data(as_text=True)[:300]}")
        if resp.mimetype == "application/json":
            try:
                strict_json(resp.get_data(as_text=True))
            except ValueError as exc:
                findings.append(f"{what} -> {exc}")
        assert not findings, findings[0]

    def relogin():
        resp = client.post("/api/login", json={"pin": PIN})
        if resp.status_code in (423, 429):  # the fuzz's wrong PINs hit the budget: the console lifts it
            app.extensions["uno_pin_guard"].lift()
            stats["lockouts lifted"] += 1
            resp = client.post("/api/login", json={"pin": PIN})
        if resp.status_code == 200:
            state["csrf"] = resp.get_json()["csrf"]

    def legal_move(pick: int):
        """One input the referee accepts now, so the game goes deeper between hostile ones."""
        from table.cards import CARD_IDS
        from table.inputs import parse_input
        from table.referee import check_input

        faces = sorted(set(CARD_IDS))
        candidates = [{"kind": "start_round"}, {"kind": "draw"}, {"kind": "pass"}, {"kind": "challenge", "challenge": False},
                      {"kind": "confirm_score"}, *({"kind": "colour", "colour": c} for c in ("red", "blue")),
                      *({"kind": "flip", "card": f} for f in faces[:8]),
                      *({"kind": "play", "cards": [f]} for f in faces)]  # fmt: skip
        legal = []
        for cand in candidates:
            try:
                check_input(hub.state, parse_input(cand))
            except ValueError:
                continue
            legal.append(cand)
        if legal:
            post("/api/host/command", legal[pick % len(legal)])

    def post(path, body=None, raw=None, headers=None):
        h = {"X-CSRF-Token": state["csrf"], **(headers or {})}
        if raw is not None:
            resp = client.post(path, data=raw, headers={**h, "Content-Type": "application/json"})
        else:
            try:
                data = json.dumps(body, allow_nan=True)
            except (ValueError, TypeError, RecursionError):
                return
            resp = client.post(path, data=data, headers={**h, "Content-Type": "application/json"})
        check(resp, f"POST {path} {(raw if raw is not None else data)[:200]!r}")
        return resp

    def reads():
        for path in ("/api/snapshot", "/api/log?limit=5000", "/api/events?after=0", "/api/scores", "/api/scores.json",
                     "/api/rules", "/api/hardware", "/api/host/seats", "/api/session", "/api/scores.csv"):  # fmt: skip
            check(client.get(path), f"GET {path}")

    step = st.one_of(
        st.tuples(st.just("host"), strat["host_command"]),
        st.tuples(st.just("host"), strat["host_command"]),
        st.tuples(st.just("host"), strat["host_command"]),
        st.tuples(st.just("seat"), st.tuples(st.integers(0, SEATS), strat["seat_action"])),
        st.tuples(st.just("panel"), strat["panel"]),
        st.tuples(st.just("raw"), st.tuples(st.sampled_from(["/api/host/command", "/api/login", "/api/seat/0/action",
                                                             "/api/panel/press", "/api/host/pin"]), strat["raw"])),  # fmt: skip
        st.tuples(st.just("login"), strat["login"]),
        st.tuples(st.just("pin"), strat["pin"]),
        st.tuples(st.just("logout"), st.none()),
        st.tuples(st.just("legal"), st.integers(0, 1000)),
        st.tuples(st.just("legal"), st.integers(0, 1000)),
        st.tuples(st.just("legal"), st.integers(0, 1000)),
    )

    @settings(max_examples=examples_per_round, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(st.lists(step, min_size=1, max_size=12))
    def run(steps):
        for kind, body in steps:
            if kind == "host":
                post("/api/host/command", body)
            elif kind == "seat":
                seat, action = body
                tokens = hub.seat_tokens()
                post(f"/api/seat/{seat}/action", action, headers={"X-Seat-Token": tokens.get(seat, "x")})
            elif kind == "panel":
                post("/api/panel/press", body)
            elif kind == "raw":
                post(body[0], raw=body[1])
            elif kind == "login":
                resp = post("/api/login", body)
                if resp is not None and resp.status_code == 200:
                    state["csrf"] = resp.get_json()["csrf"]
            elif kind == "pin":
                resp = post("/api/host/pin", body)
                if resp is not None and resp.status_code == 200:  # keep the probe's PIN
                    client.post("/api/host/pin", json={"pin": PIN}, headers={"X-CSRF-Token": resp.get_json()["csrf"]})
                    relogin()
            elif kind == "logout":
                check(client.post("/api/logout"), "POST /api/logout")
                relogin()
            elif kind == "legal":
                legal_move(body)
            if kind in ("login", "pin", "raw") and not client.get("/api/session").get_json()["host"]:
                relogin()
        reads()

    started = time.monotonic()
    rounds = 0
    try:
        while time.monotonic() - started < seconds:
            hseed(seed * 1_000_003 + rounds)(run)()
            rounds += 1
        # The log is the truth: the current match replays to the state the table shows.
        hub.stop()
        path = hub.log.path
        with EventLog(path, create=False) as again:
            replayed = snapshot(rebuild_state(again.rules, again.inputs(), str(path)))
            logged = len(again)
        live = snapshot(hub.state)
        assert replayed == live, "the log does not replay to the live state"
    finally:
        hub.close()
        store.close()
        if tmp is not None:
            tmp.cleanup()
    return {
        "mode": "fuzz", "seconds": round(time.monotonic() - started, 1), "requests": stats["requests"],
        "hypothesis_rounds": rounds, "matches": len(list(Path(folder).glob("match-*.db"))) if tmp is None else None,
        "current_log_entries": logged, "replays_to_live_state": True, "lockouts_lifted": stats["lockouts lifted"],
        "statuses": {k.split()[1]: v for k, v in sorted(stats.items()) if k.startswith("status")},
    }  # fmt: skip


# ----------------------------------------------------------------------------- slow loris


def loris(seconds: float, hostile: int = 500, phones: int = 20) -> dict:
    """One hostile address holds `hostile` half-sent requests and trickles a byte into each
    every second; `phones` clients on other addresses time their requests."""
    import http.client

    from app.hub import TableHub
    from table.log import MemoryLog
    from table.rules import load_rules
    from web_ui.launch import start_dashboard

    hub = TableHub(MemoryLog(load_rules("official", overrides={"players": SEATS})), NAMES).start()
    dash = start_dashboard(hub, host="127.0.0.1", port=0, pin=PIN, out=lambda *_: None, threads=64)
    port = int(dash.url.rsplit(":", 1)[1])
    socks = []
    for _ in range(hostile):
        s = socket.socket()
        s.bind(("127.0.0.2", 0))
        s.settimeout(2)
        try:
            s.connect(("127.0.0.1", port))
            s.sendall(b"POST /api/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n")
            socks.append(s)
        except OSError:
            s.close()
    stop = threading.Event()

    def trickle():
        while not stop.wait(1.0):
            for s in socks:
                try:
                    s.send(b"X")
                except OSError:
                    pass

    threading.Thread(target=trickle, daemon=True).start()
    times: list[float] = []
    errors: list[str] = []
    held_samples: list[int] = []
    until = time.monotonic() + seconds

    def phone(i):
        while time.monotonic() < until:
            t0 = time.perf_counter()
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5, source_address=(f"127.0.0.{10 + i}", 0))
                conn.request("GET", ("/healthz", "/api/snapshot", "/api/events?after=0")[i % 3])
                r = conn.getresponse()
                r.read()
                conn.close()
                if r.status == 200:
                    times.append(time.perf_counter() - t0)
                else:
                    errors.append(str(r.status))
            except OSError as exc:
                errors.append(repr(exc))
            time.sleep(0.1)

    threads = [threading.Thread(target=phone, args=(i,)) for i in range(phones)]
    for t in threads:
        t.start()
    while time.monotonic() < until:
        held_samples.append(dash.server.server.open_from("127.0.0.2"))
        time.sleep(0.5)
    for t in threads:
        t.join(30)
    stop.set()
    for s in socks:
        s.close()
    refused = dash.server.server.refused
    dash.close()
    hub.close()
    q = statistics.quantiles(times, n=100) if len(times) > 2 else [float("nan")] * 99
    return {
        "mode": "loris", "seconds": seconds, "hostile_connections_opened": len(socks),
        "hostile_connections_held_max": max(held_samples or [0]), "hostile_refused_503": refused,
        "phones": phones, "phone_requests": len(times), "phone_errors": len(errors),
        "p50_ms": round(q[49] * 1000, 1), "p95_ms": round(q[94] * 1000, 1), "max_ms": round(max(times) * 1000, 1),
    }  # fmt: skip


# ----------------------------------------------------------------------------- kills

RUN_CONFIG = """\
players: [Ana, Ben, Cleo]
vision:
  source: {type: sim, seed: 1, plays: 3}
  detector: {type: sim-truth}
"""


def _start(folder: Path, port: int):
    cmd = [sys.executable, "-m", "app.cli", "run", "--config", str(folder / "uno-table.yaml"), "--mock-gpio",
           "--host", "127.0.0.1", "--port", str(port), "--data-dir", str(folder / "data")]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
    lines = []
    deadline = time.time() + 120
    for line in proc.stdout:
        lines.append(line)
        if line.startswith("Dashboard:") or time.time() > deadline:
            break
    threading.Thread(target=lambda: [None for _ in proc.stdout], daemon=True).start()  # keep the pipe drained
    return proc, "".join(lines)


def _http(port, path, body=None, headers=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data,
                                 headers={"Content-Type": "application/json", **(headers or {})})  # fmt: skip
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers, exc.read()


def kills(n: int, seed: int = 0) -> dict:
    """SIGKILL `uno-table run` n times under a stream of host inputs; after each restart the
    same match resumes with every input the table acknowledged."""
    rng = random.Random(seed)
    survived, acked_total, details = 0, 0, []
    with tempfile.TemporaryDirectory(prefix="uno-kills-") as tmp:
        folder = Path(tmp)
        (folder / "uno-table.yaml").write_text(RUN_CONFIG)
        match = None
        acked = 0
        for i in range(n + 1):
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
            proc, out = _start(folder, port)
            m = re.search(r"(?:Resuming the unfinished match|New match) (\d+)", out)
            pin = re.search(r"host PIN: (\d+)", out)
            if not (m and pin):
                proc.kill()
                raise AssertionError(f"restart {i} did not come up: {out[-800:]}")
            number = int(m.group(1))
            status, headers, body = _http(port, "/api/login", {"pin": pin.group(1)})
            cookie = headers["Set-Cookie"].split(";", 1)[0]
            csrf = json.loads(body)["csrf"]
            auth = {"Cookie": cookie, "X-CSRF-Token": csrf}
            _, _, body = _http(port, "/api/log?limit=5000", headers=auth)
            logged = len(json.loads(body)["entries"])
            if match is not None:
                ok = number == match and logged >= acked
                details.append({"kill": i, "match": number, "acked": acked, "logged": logged, "ok": ok})
                survived += ok
            match = number
            if i == n:
                proc.terminate()
                proc.wait(30)
                break
            acked = logged
            # a stream of inputs until a random kill; each 200 is one more acknowledged entry
            stop_at = time.monotonic() + rng.uniform(0.5, 3.0)
            cmds = [{"kind": "pause"}, {"kind": "resume"}]
            while time.monotonic() < stop_at:
                body = {"kind": "tick", "at": round(rng.uniform(0, 1e5), 3)}
                status, _, _ = _http(port, "/api/host/command", body, headers=auth)
                if status == 200:
                    acked += 1
                if rng.random() < 0.05:
                    _http(port, "/api/host/command", rng.choice(cmds), headers=auth)
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(10)
            acked_total += acked
    return {"mode": "kills", "kills": n, "survived": survived, "acknowledged_inputs": acked, "details": details}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="mode", required=True)
    f = sub.add_parser("fuzz")
    f.add_argument("--seconds", type=float, default=60)
    f.add_argument("--seed", type=int, default=0)
    lo = sub.add_parser("loris")
    lo.add_argument("--seconds", type=float, default=10)
    lo.add_argument("--hostile", type=int, default=500)
    lo.add_argument("--phones", type=int, default=20)
    k = sub.add_parser("kills")
    k.add_argument("--kills", type=int, default=5)
    k.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if args.mode == "fuzz":
        result = fuzz(args.seconds, args.seed)
    elif args.mode == "loris":
        result = loris(args.seconds, args.hostile, args.phones)
    else:
        result = kills(args.kills, args.seed)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
