"""Shared by the browser, load and fault tests: start the server, talk to /verify/, compare tables."""
import glob
import json
import os
import re
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.dirname(os.path.dirname(HERE))


class Server:
    """`live-table` on a free loopback port, with a store in a temporary directory, or `store` (a path or a
    postgres:// URL) made anew (`fresh`) or as another process left it."""

    def __init__(self, *args, count=30, store=None, fresh=True):
        self.store = store or os.path.join(tempfile.mkdtemp(prefix="live-table-"), "live.sqlite")
        binary = os.environ.get("LIVE_TABLE", os.path.join(PACKAGE, ".build", "debug", "live-table"))
        command = [binary, "--store", self.store, *(["--fresh"] if fresh else []), "--port", "0", "--count", str(count), *args]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        line = self.process.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if not match:
            self.stop()
            raise RuntimeError(f"live-table did not start: {line!r}")
        self.port = int(match.group(1))
        self.url = f"http://127.0.0.1:{self.port}/"
        self.ws = f"ws://127.0.0.1:{self.port}/socket"

    def get(self, path):
        with urllib.request.urlopen(self.url + path.lstrip("/"), timeout=60) as response:
            return json.load(response)

    def post(self, path):
        request = urllib.request.Request(self.url + path.lstrip("/"), method="POST", data=b"")
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.load(response)

    def alive(self):
        return self.process.poll() is None

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.process.stdout.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


class Postgres:
    """A PostgreSQL server for the cross-process test: $OPENCOREDATA_POSTGRES_URL when set (CI starts one),
    else a throwaway one from Scripts/postgres-server.sh, stopped on exit. `store_url()` names a fresh schema,
    dropped on exit; `rows(schema)` reads the products with psql, not through the library."""

    def __init__(self):
        self.directory = None
        self.url = os.environ.get("OPENCOREDATA_POSTGRES_URL", "")
        if not self.url:
            self.directory = tempfile.mkdtemp(prefix="pglt.")
            script = os.path.join(PACKAGE, "..", "..", "Scripts", "postgres-server.sh")
            started = subprocess.run(["bash", script, "start", self.directory], stdout=subprocess.PIPE, text=True)
            if started.returncode != 0:
                raise SystemExit("FAIL: no PostgreSQL server could start (Scripts/postgres-server.sh said why above)")
            self.url = started.stdout.strip()
        self.base = urllib.parse.urlsplit(self.url)._replace(query="").geturl()
        self.schemas = []
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/psql"))
        self.psql = found[-1] if found else "psql"

    def store_url(self):
        schema = f"livetable_{os.getpid()}_{int(time.time() * 1000)}"
        self.schemas.append(schema)
        return f"{self.base}?schema={schema}"

    def sql(self, text):
        out = subprocess.run([self.psql, self.base, "-X", "-A", "-t", "-F", "\t", "-c", text], check=True, capture_output=True, text=True)
        return [line.split("\t") for line in out.stdout.splitlines() if line]

    def rows(self, schema):
        """(category, name, price) of every product, straight from the table."""
        return sorted((c, n, int(p)) for c, n, p in self.sql(f"SELECT zcategory, zname, zprice FROM {schema}.zproducts"))

    def close(self):
        for schema in self.schemas:
            try:
                self.sql(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
            except subprocess.CalledProcessError:
                pass
        if self.directory:
            script = os.path.join(PACKAGE, "..", "..", "Scripts", "postgres-server.sh")
            subprocess.run(["bash", script, "stop", self.directory], check=False)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def table_rows(sections):
    """(category, name, price) of every row of a table, to compare with `Postgres.rows`."""
    return sorted((s["name"], r["name"], r["price"]) for s in sections for r in s["rows"])


def same_table(a, b):
    """Equal up to the order of rows that tie on every sort key (category, name, price)."""
    if [s["name"] for s in a] != [s["name"] for s in b]:
        return False
    for x, y in zip(a, b):
        if [(r["name"], r["price"]) for r in x["rows"]] != [(r["name"], r["price"]) for r in y["rows"]]:
            return False
        key = lambda r: (r["name"], r["price"], r["id"], r["category"])
        if sorted(map(key, x["rows"])) != sorted(map(key, y["rows"])):
            return False
    return True


class TableModel:
    """The page's row model, changed by batches exactly as the page's script changes its DOM."""

    def __init__(self):
        self.sections, self.commit = [], 0

    def apply(self, m):
        if m["type"] == "snapshot":
            self.sections = [{"name": s["name"], "rows": list(s["rows"])} for s in m["sections"]]
            self.commit = m["commit"]
        elif m["type"] == "batch":
            self.apply_batch(m)

    def apply_batch(self, b):
        old = self.sections
        new = [{"name": s["name"], "rows": list(s["rows"])} for s in old]
        for r in b["reloads"]:
            s, i = r["at"]
            new[s]["rows"][i] = r["row"]
        for s, i in sorted(b["deleteRows"] + [m["from"] for m in b["moves"]], reverse=True):
            del new[s]["rows"][i]
        for s in sorted(b["deleteSections"], reverse=True):
            del new[s]
        for s in sorted(b["insertSections"], key=lambda s: s["index"]):
            new.insert(s["index"], {"name": s["name"], "rows": []})
        arriving = [(tuple(r["at"]), r["row"]) for r in b["insertRows"]] + [(tuple(m["to"]), m["row"]) for m in b["moves"]]
        for (s, i), row in sorted(arriving, key=lambda x: x[0]):
            if i > len(new[s]["rows"]):
                raise IndexError(f"insert at {s},{i} past the end")
            new[s]["rows"].insert(i, row)
        self.sections, self.commit = new, b["commit"]


class Checks:
    """Counts passed and failed checks; a failure prints the seed and what failed. `report()` closes."""

    def __init__(self, seed):
        self.seed, self.passed, self.failed = seed, 0, 0

    def __call__(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL (seed {self.seed}): {what}", flush=True)

    def report(self, name):
        return report(name, self.passed, self.failed)


def report(name, passed, failed):
    """The closing line CI reads."""
    print(f"{name}: {passed} passed, {failed} failed", flush=True)
    return 0 if failed == 0 and passed > 0 else 1
