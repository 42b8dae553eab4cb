"""The load test (issue #37 item 4): N WebSocket clients, each keeping the page's row model from the JSON,
each making E edits; at the end every model equals the store. Prints throughput (edits/s) and the time
from a save to the last client's update of that commit (p50, p99).

    python3 load_test.py [--pages 50] [--edits 1000] [--window 4] [--seed S]
"""
import argparse
import asyncio
import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Browser"))
from livetable import Checks, Server, TableModel, same_table  # noqa: E402

import websockets  # noqa: E402

CATEGORIES = ["Молочное", "Колбасы", "Сыры", "Напитки", "Хлеб"]


def random_message(model, rng, target):
    ids = [r["id"] for s in model.sections for r in s["rows"]]
    roll = rng.random()
    if not ids or roll < (0.3 if len(ids) < target else 0.1):
        return {"type": "add", "name": f"Нагрузка {rng.randint(1, 99999)}", "price": rng.randint(0, 999), "category": rng.choice(CATEGORIES)}
    if roll < (0.4 if len(ids) > target else 0.2):
        return {"type": "delete", "id": rng.choice(ids)}
    if rng.random() < 0.8:
        return {"type": "edit", "id": rng.choice(ids), "fields": {"price": rng.randint(0, 999)}}
    return {"type": "edit", "id": rng.choice(ids), "fields": {"category": rng.choice(CATEGORIES)}}


class Client:
    def __init__(self, number, seed):
        self.number, self.rng = number, random.Random(seed * 1000 + number)
        self.model, self.acks, self.errors, self.failures = TableModel(), 0, 0, []
        self.last_message = time.time()

    async def run(self, url, edits, window, target, stats):
        async with websockets.connect(url, max_size=None) as ws:
            self.model.apply(json.loads(await ws.recv()))
            free = asyncio.Semaphore(window)
            finished = asyncio.Event()

            async def read():
                async for text in ws:
                    now = time.time() * 1000
                    self.last_message = time.time()
                    m = json.loads(text)
                    if m["type"] == "batch":
                        try:
                            self.model.apply(m)
                        except Exception as error:
                            self.failures.append(f"batch {m['seq']}: {error}")
                        stats.applied(m["commit"], m["savedAt"], now)
                    elif m["type"] in ("ack", "error"):
                        if m["type"] == "ack":
                            self.acks += 1
                        else:
                            self.errors += 1
                            if m["problem"] != "id":
                                self.failures.append(f"unexpected error reply: {m}")
                        free.release()
                        if self.acks + self.errors == edits:
                            finished.set()
                    if stats.done.is_set():
                        return

            reader = asyncio.create_task(read())
            for n in range(edits):
                await free.acquire()
                message = random_message(self.model, self.rng, target)
                message["ref"] = n + 1
                await ws.send(json.dumps(message, ensure_ascii=False))
            if edits:
                await finished.wait()
            await stats.done.wait()
            reader.cancel()


class Stats:
    def __init__(self):
        self.saved, self.last = {}, {}
        self.done = asyncio.Event()

    def applied(self, commit, saved_at, now):
        self.saved[commit] = saved_at
        self.last[commit] = max(self.last.get(commit, 0), now)


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))] if values else float("nan")


async def run(options):
    check = Checks(options.seed)

    with Server(count=options.count) as server:
        stats = Stats()
        clients = [Client(i, options.seed) for i in range(options.pages)]
        start = time.time()
        tasks = [asyncio.create_task(c.run(server.ws, options.edits, options.window, options.count, stats)) for c in clients]
        while not all(c.acks + c.errors == options.edits for c in clients):
            if any(t.done() and t.exception() for t in tasks):
                break
            await asyncio.sleep(0.05)
        elapsed = time.time() - start
        table = await asyncio.to_thread(server.get, "/verify/table")
        deadline = time.time() + 60
        while time.time() < deadline and not all(c.model.commit == table["commit"] for c in clients):
            await asyncio.sleep(0.05)
        stats.done.set()
        for t in tasks:
            try:
                await asyncio.wait_for(t, 10)
            except (asyncio.TimeoutError, websockets.ConnectionClosed):
                pass
            if t.done() and not t.cancelled() and t.exception():
                check(False, f"a client failed: {t.exception()!r}")
        unequal = [c.number for c in clients if not same_table(c.model.sections, table["sections"])]
        check(not unequal, f"{len(unequal)} of {len(clients)} clients ended unequal to the store: {unequal[:5]}")
        check(all(not c.failures for c in clients), f"batches that did not fit, or bad replies: {[c.failures[:1] for c in clients if c.failures][:3]}")
        check(server.alive(), "the server is still running")
        acks, errors = sum(c.acks for c in clients), sum(c.errors for c in clients)
        check(acks > 0, "edits were saved")
        latencies = [stats.last[k] - stats.saved[k] for k in stats.last]
        print(f"{options.pages} clients x {options.edits} edits: {acks} saved, {errors} refused (a row another client "
              f"deleted first) in {elapsed:.1f} s = {acks / elapsed:.0f} edits/s, {table['commit']} commits")
        print(f"save -> last client's update: p50 {percentile(latencies, 50):.1f} ms, p99 {percentile(latencies, 99):.1f} ms "
              f"over {len(latencies)} commits")
    return check.report("load_test")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=50)
    parser.add_argument("--edits", type=int, default=1000)
    parser.add_argument("--window", type=int, default=4)
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    return asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
