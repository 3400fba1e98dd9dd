"""Benchmark: many tables into one Mosquitto and one league process (issue 17).

Run as a script (not collected by pytest; needs `mosquitto` on the PATH):

    python tests/bench/bench_league.py [--tables 50] [--seconds 30] [--json]

What it does:
- Plays a few real simulated matches (referee-level simulator through real hubs and SQLite
  logs on tmpfs) and turns each log into the exact messages a table's publisher sends
  (`app.league.publisher._Cursor`), round data included. 50 table names replay them, each
  with its own MQTT client and instance id, so the league sees 50 tables.
- Starts the league (`app.league.league.League`, its own SQLite store) in a child process,
  so its CPU and memory are its own.
- Phase "realistic": every table logs one entry every 3 s (a real table: a round of ~80
  inputs in ~4-5 minutes). Phase "100x": one entry every 30 ms per table. Each message's
  `logged_at` is stamped when it is sent, which is when a live table's publisher sends it
  (right after the log commit); the league measures commit-to-standings as the time from
  that stamp to the commit of the batch that counted the entry, standings recomputed.
- Phase "saturation": tables publish as fast as the generator can; the league's drain rate
  (entries counted per second) divided by the realistic per-table rate is the number of
  tables one league process keeps up with. The generator, the broker and the league share
  the machine's cores, so that figure is a lower bound for the league alone.
- Also: one table publisher's catch-up rate (a 2000-entry log sent after the broker was away).
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

REALISTIC = 1 / 3.0  # entries per second per table


# ----------------------------------------------------------------------------- league child


def league_child(broker: str, store: str) -> None:
    """The league process: answers `stats` / `reset` / `quit` on stdin with one JSON line."""
    from app.league.league import League

    league = League(broker, store, name="bench-league").start()
    while not league.connected:  # subscribed before the first table speaks
        time.sleep(0.05)
    time.sleep(0.5)
    print(json.dumps({"ready": True}), flush=True)
    base = os.times()
    t0 = time.monotonic()
    for line in sys.stdin:
        cmd = line.strip()
        if cmd == "reset":
            league.latency.clear()
            base, t0 = os.times(), time.monotonic()
            print(json.dumps({"ok": True}), flush=True)
        elif cmd == "stats":
            league.sync(30)
            now, wall = os.times(), time.monotonic() - t0
            lat = sorted(league.latency)
            rss = int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")
            print(json.dumps({
                "entries": league.counters["entries"], "counters": league.counters,
                "counted": sum(league.counted().values()), "samples": len(lat),
                "p50_ms": 1000 * lat[len(lat) // 2] if lat else None,
                "p95_ms": 1000 * lat[int(len(lat) * 0.95)] if lat else None,
                "max_ms": 1000 * lat[-1] if lat else None,
                "cpu_pct": 100 * ((now.user - base.user) + (now.system - base.system)) / max(wall, 1e-9),
                "cpu_s": (now.user - base.user) + (now.system - base.system),
                "rss_mb": rss / 2**20,
                "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            }), flush=True)  # fmt: skip
        elif cmd == "quit":
            break
    league.stop()


class LeagueProc:
    def __init__(self, broker: str, store: Path):
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--role", "league", "--broker", broker, "--store", str(store)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        json.loads(self.proc.stdout.readline())  # ready

    def ask(self, cmd: str) -> dict:
        self.proc.stdin.write(cmd + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self) -> None:
        try:
            self.proc.stdin.write("quit\n")
            self.proc.stdin.flush()
            self.proc.wait(20)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()


# ----------------------------------------------------------------------------- messages


def make_logs(folder: Path, count: int, entries: int) -> list[list[dict]]:
    """`count` simulated club tables' logs of at least `entries` entries, as the messages
    their publishers send (dicts, re-stamped and encoded when sent)."""
    from app.league.publisher import _Cursor
    from app.league.sim import SimTable, club_players

    out = []
    for i in range(count):
        # A long match (target 100000): one log holds every entry the phases need.
        t = SimTable(folder / f"gen{i}", f"gen{i}", club_players(i), seed=100 + i,
                     rules={"scoring": {"target": 100_000}})  # fmt: skip
        t.play(None, rounds=max(2, entries // 50))
        cur = _Cursor(Path(t.hub.log.path), club_players(i), 0)
        msgs = [json.loads(p) for _, p in cur.next_messages(10**7, {"v": 1, "instance": "x"})]
        cur.close()
        t.close()
        out.append(msgs)
    return out


class Generator:
    """`n` tables (names `prefix-NN`), each its own paho client, replaying logs at a rate."""

    def __init__(self, url, logs, n: int, prefix: str, match: str = "bench"):
        from app.league.mqtt import encode, make_client, parse_broker_url, topic

        self.encode, self.topic = encode, topic
        self.url = parse_broker_url(url)
        self.match = match
        self.tables = []
        for i in range(n):
            name = f"{prefix}-{i:03d}"
            inst = f"{prefix}{i:03d}".ljust(8, "0")
            c = make_client(self.url, f"bench-{name}", clean_session=True)
            c.connect(self.url.host, self.url.port, keepalive=30)
            c.loop_start()
            c.publish(topic(match, name, "status"), encode({"v": 1, "instance": inst, "status": "online"}), qos=1)
            self.tables.append({"name": name, "inst": inst, "client": c, "msgs": logs[i % len(logs)], "next": 0})

    def send(self, t) -> bool:
        if t["next"] >= len(t["msgs"]):
            return False
        m = dict(t["msgs"][t["next"]])
        m["instance"] = t["inst"]
        m["logged_at"] = time.time()
        t["client"].publish(self.topic(self.match, t["name"], "events"), self.encode(m), qos=1)
        t["next"] += 1
        return True

    def run(self, rate: float | None, seconds: float) -> int:
        """Each table sends `rate` entries/s (None: as fast as possible) for `seconds`."""
        sent = 0
        end = time.monotonic() + seconds
        if rate is None:
            while time.monotonic() < end:
                progressed = False
                for t in self.tables:
                    if self.send(t):
                        sent += 1
                        progressed = True
                if not progressed:
                    break
            return sent
        gap = 1.0 / rate
        start = time.monotonic()
        heap = [(start + gap * i / len(self.tables), i) for i in range(len(self.tables))]
        heapq.heapify(heap)
        while heap:
            due, i = heapq.heappop(heap)
            if due > end:
                break
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            if self.send(self.tables[i]):
                sent += 1
                heapq.heappush(heap, (due + gap, i))
        return sent

    def close(self) -> None:
        for t in self.tables:  # as a table's publisher does when it stops
            body = self.encode({"v": 1, "instance": t["inst"], "status": "offline"})
            t["client"].publish(self.topic(self.match, t["name"], "status"), body, qos=1, retain=True).wait_for_publish(5)
            t["client"].disconnect()
            t["client"].loop_stop()


# ----------------------------------------------------------------------------- phases


def wait_counted(league: LeagueProc, target: int, timeout: float) -> tuple[dict, float]:
    t0 = time.monotonic()
    while True:
        st = league.ask("stats")
        if st["entries"] >= target or time.monotonic() - t0 > timeout:
            return st, time.monotonic() - t0
        time.sleep(0.2)


def phase(league: LeagueProc, url, logs, n, prefix, rate, seconds, before: int) -> dict:
    gen = Generator(url, logs, n, prefix)
    league.ask("reset")
    t0 = time.monotonic()
    sent = gen.run(rate, seconds)
    send_s = time.monotonic() - t0
    st, drain = wait_counted(league, before + sent, timeout=120)
    total_s = time.monotonic() - t0
    gen.close()
    return {
        "tables": n, "rate_per_table": rate, "sent": sent, "send_s": round(send_s, 2),
        "sent_per_s": round(sent / send_s, 1), "counted": st["entries"] - before,
        "drain_after_send_s": round(drain, 2),
        "league_entries_per_s": round((st["entries"] - before) / total_s, 1),
        "p50_ms": st["p50_ms"] and round(st["p50_ms"], 1), "p95_ms": st["p95_ms"] and round(st["p95_ms"], 1),
        "max_ms": st["max_ms"] and round(st["max_ms"], 1),
        "league_cpu_pct": round(st["cpu_pct"], 1), "league_rss_mb": round(st["rss_mb"], 1),
        "league_cpu_us_per_entry": round(1e6 * st["cpu_s"] / max(st["entries"] - before, 1), 1),
        "league_max_rss_mb": round(st["max_rss_mb"], 1), "total_entries": st["entries"],
    }  # fmt: skip


def publisher_catch_up(url: str, folder: Path) -> dict:
    """One real table publisher sending a whole log that piled up while the broker was away."""
    from app.league.mqtt import LeagueConfig
    from app.league.publisher import TablePublisher
    from app.league.sim import EIGHT, SimTable

    t = SimTable(folder / "pub", "pub", EIGHT, part=0, seed=5)
    t.play(None)
    pub = TablePublisher(t.hub, LeagueConfig(broker=url, table="pub", match="bench-pub", part=0))
    t0 = time.monotonic()
    pub.start()
    while pub.pending() > 0:
        time.sleep(0.01)
    dt = time.monotonic() - t0
    n = len(t.hub.log)
    pub.stop()
    t.close()
    return {"entries": n, "seconds": round(dt, 2), "entries_per_s": round(n / dt, 1)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--role", default="bench", help=argparse.SUPPRESS)
    ap.add_argument("--broker", help=argparse.SUPPRESS)
    ap.add_argument("--store", help=argparse.SUPPRESS)
    ap.add_argument("--tables", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=30.0, help="length of the realistic and 100x phases")
    ap.add_argument("--saturation-tables", type=int, default=100)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.role == "league":
        league_child(args.broker, args.store)
        return 0

    from app.league.broker import LocalBroker

    shm = Path("/dev/shm") if os.access("/dev/shm", os.W_OK) else None
    folder = Path(tempfile.mkdtemp(prefix="bench-league-", dir=shm))
    out: dict = {"cpus": os.cpu_count(), "load_at_start": os.getloadavg()}
    try:
        t0 = time.monotonic()
        per_table = int(REALISTIC * 100 * args.seconds) + 50
        logs = make_logs(folder / "logs", 10, per_table)
        out["message_logs"] = {"logs": len(logs), "entries": [len(m) for m in logs],
                               "seconds_to_make": round(time.monotonic() - t0, 1)}  # fmt: skip
        with LocalBroker(max_queued=1_000_000) as broker:
            league = LeagueProc(broker.url, folder / "league.db")
            try:
                out["realistic"] = phase(league, broker.url, logs, args.tables, "real", REALISTIC,
                                         args.seconds, 0)  # fmt: skip
                out["x100"] = phase(league, broker.url, logs, args.tables, "fast", REALISTIC * 100,
                                    args.seconds, out["realistic"]["total_entries"])  # fmt: skip
                sat = phase(league, broker.url, logs, args.saturation_tables, "sat", None,
                            args.seconds, out["x100"]["total_entries"])  # fmt: skip
                sat["tables_kept_up_with"] = int(sat["league_entries_per_s"] / REALISTIC)
                # What one whole core would give, at the CPU cost per entry measured here.
                sat["tables_per_core"] = int(1e6 / sat["league_cpu_us_per_entry"] / REALISTIC)
                out["saturation"] = sat
            finally:
                league.close()
            out["publisher_catch_up"] = publisher_catch_up(broker.url, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    out["load_at_end"] = os.getloadavg()
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"machine: {out['cpus']} CPUs, load {out['load_at_start'][0]:.1f} at start, {out['load_at_end'][0]:.1f} at end")
    for key, label in (("realistic", "realistic (1 entry / 3 s per table)"), ("x100", "100x (1 entry / 30 ms per table)"),
                       ("saturation", "saturation (as fast as the generator goes)")):  # fmt: skip
        r = out[key]
        print(f"{label}: {r['tables']} tables, {r['sent']} entries sent at {r['sent_per_s']}/s, "
              f"league counted {r['counted']} at {r['league_entries_per_s']}/s "
              f"(drained {r['drain_after_send_s']} s after the last send)")  # fmt: skip
        print(f"    commit-to-standings p50 {r['p50_ms']} ms, p95 {r['p95_ms']} ms, max {r['max_ms']} ms; "
              f"league CPU {r['league_cpu_pct']}% of one core ({r['league_cpu_us_per_entry']} us per entry), "
              f"RSS {r['league_rss_mb']} MB (peak {r['league_max_rss_mb']} MB)")  # fmt: skip
    sat = out["saturation"]
    print(f"one league process kept up with {sat['league_entries_per_s']} entries/s here, about "
          f"{sat['tables_kept_up_with']} tables at the realistic rate (with the CPU it got; a whole core at "
          f"{sat['league_cpu_us_per_entry']} us per entry: about {sat['tables_per_core']} tables)")
    pc = out["publisher_catch_up"]
    print(f"a table publisher catching up: {pc['entries']} entries in {pc['seconds']} s ({pc['entries_per_s']}/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
