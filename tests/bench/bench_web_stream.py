"""Load benchmark for the dashboard's live stream (issue 7).

N clients on 127.0.0.1 hold /api/stream on a real waitress server (in its own process, as in
production) while the table publishes events at a fixed rate. Every client must get every
event exactly once and in order; the figures are the delivery latencies (event published ->
message parsed by the client), over all clients and events.

    python -m tests.bench.bench_web_stream                 # 50 clients, 10 events/s, 20 s
    python -m tests.bench.bench_web_stream --clients 80 --rate 20 --duration 10 --json
    python -m tests.bench.bench_web_stream --service fake   # the test double instead of the hub
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.web_fakes import FakeTableService, SSEClient  # noqa: E402


def serve(conn, clients: int, rate: float, duration: float, service: str) -> None:
    """Child process: the table + dashboard on a free port; publishes events when told."""
    from web_ui.app import create_app
    from web_ui.server import BackgroundServer

    if service == "hub":  # the real app hub: its feed, its (larger) snapshots
        from app.hub import TableHub
        from table.log import MemoryLog
        from table.rules import load_rules

        svc = TableHub(MemoryLog(load_rules("official")), ["Ana", "Ben", "Cy", "Dee"]).start()
        svc.submit({"kind": "start_round", "dealer": 3}, source="host")
        svc.submit({"kind": "flip", "card": "red-5"}, source="host")
        emit = svc.feed.publish
    else:
        svc = FakeTableService(seats=4)
        emit = svc.emit
    app = create_app(
        svc, host_pin="000000", seat_tokens={i: f"t{i}-bench" for i in range(4)}, max_streams=clients + 10
    )
    with BackgroundServer(app) as srv:
        conn.send({"url": srv.url, "threads": srv.server.adj.threads})
        assert conn.recv() == "go"
        n = int(rate * duration)
        start = time.perf_counter()
        for i in range(n):
            # fixed schedule, not sleep-after-send, so a slow tick does not lower the rate
            delay = start + i / rate - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            emit("bench", {"i": i, "t": time.time()})
        conn.send({"published": n, "seconds": time.perf_counter() - start})
        conn.recv()  # stay up until the clients are done


def client(url: str, expect: int, out: dict, ready: threading.Barrier, idx: int) -> None:
    c = SSEClient(url, timeout=15)
    seqs: list[int] = []
    lat: list[float] = []
    try:
        first = c.next()
        assert first["type"] == "snapshot", first
        start_seq = first["id"]
        ready.wait()
        while len(seqs) < expect:
            msg = c.next()
            if msg is None:
                break
            if msg["type"] != "event":
                continue
            now = time.time()
            seqs.append(msg["id"])
            lat.append(now - msg["payload"]["payload"]["t"])
    except Exception as exc:  # noqa: BLE001 - reported in the figures
        out[idx] = {"error": repr(exc), "seqs": seqs, "lat": lat}
        return
    finally:
        c.close()
    out[idx] = {"start": start_seq, "seqs": seqs, "lat": lat}


def pct(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0-100)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--rate", type=float, default=10.0, help="events per second")
    ap.add_argument("--duration", type=float, default=20.0, help="seconds of events")
    ap.add_argument("--service", choices=("hub", "fake"), default="hub",
                    help="hub: app.hub.TableHub (default); fake: the in-memory test double")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)

    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=serve, args=(child, args.clients, args.rate, args.duration, args.service), daemon=True)
    proc.start()
    info = parent.recv()
    expect = int(args.rate * args.duration)
    results: dict[int, dict] = {}
    ready = threading.Barrier(args.clients + 1)
    threads = [
        threading.Thread(target=client, args=(info["url"], expect, results, ready, i), daemon=True)
        for i in range(args.clients)
    ]
    for t in threads:
        t.start()
    ready.wait(timeout=60)  # every client holds its stream before the first event
    parent.send("go")
    pub = parent.recv()
    for t in threads:
        t.join(timeout=args.duration + 30)
    parent.send("stop")
    proc.join(timeout=10)

    errors = [r["error"] for r in results.values() if "error" in r]
    complete = sum(
        1 for r in results.values()
        if "error" not in r and r["seqs"] == list(range(r["start"] + 1, r["start"] + 1 + expect))
    )  # fmt: skip
    lat_ms = [x * 1000 for r in results.values() for x in r["lat"]]
    figures = {
        "service": args.service,
        "clients": args.clients,
        "events": expect,
        "rate_per_s": args.rate,
        "published_in_s": round(pub["seconds"], 2),
        "server_threads": info["threads"],
        "clients_with_every_event_in_order": complete,
        "messages_delivered": len(lat_ms),
        "errors": errors[:3],
        "latency_ms": {
            "p50": round(pct(lat_ms, 50), 1),
            "p95": round(pct(lat_ms, 95), 1),
            "p99": round(pct(lat_ms, 99), 1),
            "max": round(max(lat_ms), 1) if lat_ms else None,
        },
        "cpus": os.cpu_count(),
    }
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"live stream ({args.service}): {args.clients} clients on 127.0.0.1, {expect} events at {args.rate}/s "
              f"(published in {figures['published_in_s']} s), waitress threads {info['threads']}")
        print(f"  clients with every event, in order, no repeat: {complete}/{args.clients}"
              f"  (messages delivered {len(lat_ms)}/{expect * args.clients})")
        lm = figures["latency_ms"]
        print(f"  delivery latency ms: p50 {lm['p50']}  p95 {lm['p95']}  p99 {lm['p99']}  max {lm['max']}  (target p95 < 250)")
        if errors:
            print(f"  errors: {errors[:3]}")
    return 0 if complete == args.clients else 1


if __name__ == "__main__":
    sys.exit(main())
