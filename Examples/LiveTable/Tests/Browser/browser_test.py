"""The browser test (issue #37 item 3): two pages in headless Chromium, edits in one, 4 background writers;
after every batch each page's DOM must equal the fresh fetch the server kept for that batch's commit.

With --postgres (issue 49 item 5), two live-table processes on one PostgreSQL schema, two writers in each,
a page on each process and edits through both pages: every batch must fit its page's DOM, each page must
show the other process's page's inserts, and once the writers stop both pages must equal each other, a
fresh fetch in each process and the rows psql reads from the table (cross_process.py).

    python3 browser_test.py [--seconds 30] [--screenshot PATH] [--postgres]
"""
import argparse
import os
import random
import sys
import time

from livetable import PACKAGE, Checks, Server, same_table
import cross_process

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def launch(playwright):
    """Debian's Chromium through Playwright; no silent skip when it cannot start."""
    for path in [CHROMIUM, "/usr/lib/chromium/chromium"]:
        if not os.path.exists(path):
            continue
        try:
            return playwright.chromium.launch(executable_path=path, args=["--no-sandbox", "--disable-dev-shm-usage"])
        except Exception as error:  # report and try the next path
            print(f"chromium at {path} did not start: {error}", file=sys.stderr)
    raise SystemExit(f"FAIL: headless Chromium could not start (looked for {CHROMIUM}); install Debian's chromium")


def ui_edit(page, rng, n, label="Браузер"):
    """One add, edit or delete done the way a person does it, through the form and the row buttons; an
    added product is named `label n`."""
    rows = page.locator("tr.row:not(.editing)")
    count = rows.count()
    roll = rng.random()
    if count < 20 or roll < 0.3:
        page.fill("input[name=name]", f"{label} {n}")
        page.fill("input[name=price]", str(rng.randint(0, 999)))
        page.fill("input[name=category]", rng.choice(["Молочное", "Сыры", "Хлеб", "Из браузера"]))
        page.click("#submit")
        return f"{label} {n}"
    row = rows.nth(rng.randrange(count))
    if roll < 0.8:
        row.locator("button.edit").click(timeout=2000, force=True)
        price = page.locator("tr.row.editing input.edit-price")
        price.fill(str(rng.randint(0, 999)), timeout=2000)
        price.press("Enter", timeout=2000)
    else:
        row.locator("button.delete").click(timeout=2000, force=True)
        row.locator("button.confirm-delete").click(timeout=2000, force=True)
    return None


def wait_for(page, predicate, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if page.evaluate(predicate):
            return True
        time.sleep(0.1)
    return False


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--screenshot", default=os.path.join(PACKAGE, "..", "..", "docs", "images", "live-table.png"))
    parser.add_argument("--postgres", action="store_true", help="two processes on one PostgreSQL database")
    options = parser.parse_args()
    from playwright.sync_api import sync_playwright
    if options.postgres:
        return cross_process.run(options, launch, ui_edit, wait_for)

    rng = random.Random(options.seed)
    check = Checks(options.seed)

    with Server("--writers", "4", "--interval", "60", "--verify", count=30) as server, sync_playwright() as p:
        browser = launch(p)
        editor = browser.new_page(viewport={"width": 820, "height": 900})
        watcher = browser.new_page(viewport={"width": 820, "height": 900})
        for page in (editor, watcher):
            page.goto(server.url)
            check(wait_for(page, "window.__log.length > 0"), "the page got its snapshot")
        added, n, start = [], 0, time.time()
        while time.time() - start < options.seconds:
            n += 1
            try:
                name = ui_edit(editor, rng, n)
                if name:
                    added.append(name)
            except Exception as error:  # a row that moved away under the click: try again
                print(f"  (edit {n} retried: {str(error).splitlines()[0]})")
            time.sleep(rng.uniform(0.1, 0.4))
        last = server.post("/verify/quiesce")["commit"]
        for page in (editor, watcher):
            check(wait_for(page, f"window.__log.at(-1).commit >= {last}", 30), f"the page reached commit {last}")
        snapshots = server.get("/verify/snapshots?from=0")["snapshots"]
        final = server.get("/verify/table")
        for label, page in (("editor", editor), ("watcher", watcher)):
            log = page.evaluate("window.__log")
            bad = [r for r in log if not same_table(r["sections"], snapshots[str(r["commit"])])]
            check(not bad, f"{label}: {len(bad)} of {len(log)} batches left the DOM unequal to the fresh fetch "
                           f"(first at commit {bad[0]['commit'] if bad else '-'})")
            check(len(log) > 50, f"{label}: {len(log)} batches applied")
            check(page.evaluate("window.__applyFailures") == 0, f"{label}: a batch did not fit the DOM")
            check(same_table(log[-1]["sections"], final["sections"]), f"{label}: the last DOM equals the store")
            print(f"{label}: {len(log)} snapshots/batches checked against the fresh fetch of their commit")
        names = {r["name"] for s in watcher.evaluate("window.__log").pop()["sections"] for r in s["rows"]}
        seen = any(name in names for name in added) or not added
        watcher_log = watcher.evaluate("window.__log")
        seen = seen or any(r["name"] in added for rec in watcher_log for s in rec["sections"] for r in s["rows"])
        check(seen, "the watcher saw the editor's inserts")
        print(f"{n} edits through the editor page, {last} commits with 4 writers in {options.seconds:.0f} s")
        watcher.wait_for_timeout(1500)
        os.makedirs(os.path.dirname(os.path.abspath(options.screenshot)), exist_ok=True)
        watcher.screenshot(path=options.screenshot, full_page=True)
        check(server.alive(), "the server is still running")
        browser.close()
    return check.report("browser_test")


if __name__ == "__main__":
    sys.exit(main())
