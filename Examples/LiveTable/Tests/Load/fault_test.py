"""The fault test (issue #37 item 4): malformed messages get an error back and change nothing (the store
file's bytes included); seeded random bytes and JSON mutations never crash the server; a page that
disconnects in the middle of a batch and reconnects gets a full snapshot and then deltas again.

    python3 fault_test.py [--seed S] [--fuzz 400]
"""
import argparse
import asyncio
import base64
import hashlib
import json
import os
import random
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Browser"))
from livetable import Checks, Server, TableModel, same_table  # noqa: E402

import websockets  # noqa: E402

BOGUS = "x-coredata://00000000-0000-0000-0000-000000000000/Products/p1"


def store_hash(server):
    digest = hashlib.sha256()
    for suffix in ("", "-wal"):
        path = server.store + suffix
        if os.path.exists(path):
            with open(path, "rb") as f:
                digest.update(f.read())
    return digest.hexdigest()


def malformed(rng, count):
    """Fixed bad messages, then seeded random bytes (binary frames) and mutations of messages naming no row."""
    fixed = ["", "{", "[]", "null", "42", '"add"', '{"type":"add"}', '{"type":"add","name":"x","price":1.5,"category":"c"}',
             '{"type":"add","name":"x","price":1e400,"category":"c"}', '{"type":"add","name":"","price":1,"category":"c"}',
             '{"type":"edit","id":"' + BOGUS + '","fields":{"price":1}}', '{"type":"edit","id":"x","fields":{}}',
             '{"type":"delete","id":"not a url"}', '{"type":"delete","id":7}', '{"type":"sql","q":"DROP TABLE ZPRODUCTS"}',
             "[" * 10000, "x" * 20000, '{"type":"add","name":"' + "я" * 200 + '","price":1,"category":"c"}']
    out = [m for m in fixed]
    bases = ['{"type":"edit","id":"' + BOGUS + '","fields":{"price":1}}', '{"type":"delete","id":"' + BOGUS + '"}']
    pieces = ["{", "}", "[", "]", '"', ":", ",", "null", "1e999", "\\u0000", "\\ud800", "🧀", "type", "fields", "add"]
    for _ in range(count):
        if rng.random() < 0.4:
            out.append(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 80))))
        else:
            text = list(rng.choice(bases))
            for _ in range(rng.randint(1, 4)):
                at = rng.randrange(len(text))
                choice = rng.random()
                if choice < 0.4:
                    text[at] = chr(rng.randrange(32, 0x500))
                elif choice < 0.7:
                    del text[at]
                else:
                    text.insert(at, rng.choice(pieces))
            out.append("".join(text))
    return out


def raw_connect(port):
    """A WebSocket client by hand, so that it can drop the connection in the middle of a frame."""
    s = socket.create_connection(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET /socket HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    data = b""
    while b"\r\n\r\n" not in data:
        data += s.recv(4096)
    head, rest = data.split(b"\r\n\r\n", 1)
    assert b" 101 " in head.split(b"\r\n")[0], head
    return s, rest


def read_exact(s, buffer, n):
    while len(buffer) < n:
        chunk = s.recv(65536)
        if not chunk:
            raise ConnectionError("closed")
        buffer += chunk
    return buffer[:n], buffer[n:]


def frame_header(s, buffer):
    """Reads a server frame's header; returns (payload length, rest of the buffer)."""
    head, buffer = read_exact(s, buffer, 2)
    length = head[1] & 0x7F
    if length == 126:
        ext, buffer = read_exact(s, buffer, 2)
        length = struct.unpack(">H", ext)[0]
    elif length == 127:
        ext, buffer = read_exact(s, buffer, 8)
        length = struct.unpack(">Q", ext)[0]
    return length, buffer


async def collect_until_quiet(ws, model, quiet=1.0):
    while True:
        try:
            text = await asyncio.wait_for(ws.recv(), quiet)
        except asyncio.TimeoutError:
            return
        model.apply(json.loads(text))


async def run(options):
    check = Checks(options.seed)

    rng = random.Random(options.seed)
    with Server(count=20) as server:
        async with websockets.connect(server.ws, max_size=None) as a:
            model = TableModel()
            model.apply(json.loads(await a.recv()))
            # Malformed messages: one error reply each, nothing changed.
            before, table_before = store_hash(server), server.get("/verify/table")
            bad = malformed(rng, options.fuzz)
            for message in bad:
                await a.send(message)
            replies = [json.loads(await asyncio.wait_for(a.recv(), 10)) for _ in bad]
            check(all(r["type"] == "error" for r in replies), f"every malformed message got an error: {[r for r in replies if r['type'] != 'error'][:2]}")
            problems = sorted({r.get("problem") for r in replies})
            print(f"{len(bad)} malformed messages ({options.fuzz} random), each answered with an error; problems: {problems}")
            table_after = server.get("/verify/table")
            check(table_after == table_before, "the table is unchanged")
            check(store_hash(server) == before, "the store file's bytes are unchanged")
            check(server.alive(), "the server survived the malformed messages")
            # Over the frame limit (1 MiB): the connection closes, the server goes on.
        try:
            async with websockets.connect(server.ws, max_size=None) as big:
                await big.recv()
                await big.send("x" * (2 << 20))
                await asyncio.wait_for(big.recv(), 5)
        except (websockets.ConnectionClosed, asyncio.TimeoutError):
            pass
        check(server.alive(), "the server survived a 2 MiB message")

        # A page that disconnects mid-batch, then reconnects.
        async with websockets.connect(server.ws, max_size=None) as a:
            model = TableModel()
            model.apply(json.loads(await a.recv()))
            raw, buffer = await asyncio.to_thread(raw_connect, server.port)
            length, buffer = await asyncio.to_thread(frame_header, raw, buffer)
            _, buffer = await asyncio.to_thread(read_exact, raw, buffer, length)       # its snapshot, whole
            for i in range(30):
                await a.send(json.dumps({"type": "add", "name": f"Обрыв {i}", "price": i, "category": "Сыры"}))
            length, buffer = await asyncio.to_thread(frame_header, raw, buffer)        # a batch's header …
            await asyncio.to_thread(read_exact, raw, buffer, min(length, 10))           # … and 10 bytes of it
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            raw.close()                                                                 # reset, mid-frame
            await collect_until_quiet(a, model)
            async with websockets.connect(server.ws, max_size=None) as again:
                first = json.loads(await again.recv())
                table = server.get("/verify/table")
                check(first["type"] == "snapshot", "the reconnect starts with a snapshot")
                check(first.get("commit") == table["commit"] and same_table(first["sections"], table["sections"]),
                      "the snapshot is the whole table as stored")
                back = TableModel()
                back.apply(first)
                ids = [r["id"] for s in back.sections for r in s["rows"]]
                for i in range(20):
                    await a.send(json.dumps({"type": "edit", "id": ids[i % len(ids)], "fields": {"price": 500 + i}}))
                await collect_until_quiet(again, back)
                await collect_until_quiet(a, model)
                table = server.get("/verify/table")
                check(back.commit > first["commit"], "deltas follow the snapshot")
                check(same_table(back.sections, table["sections"]), "the reconnected page equals the store after its deltas")
                check(same_table(model.sections, table["sections"]), "the other page equals the store")
        check(server.alive(), "the server is still running")
    return check.report("fault_test")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--fuzz", type=int, default=400)
    return asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
