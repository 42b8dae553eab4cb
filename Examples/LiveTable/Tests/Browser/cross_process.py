"""browser_test.py --postgres (issue 49 item 5): two live-table processes on one PostgreSQL schema, each
with two background writers, a Chromium page on each and edits through both pages. Checked:
- every batch each page got fitted its DOM (no batch applied to rows the page did not have);
- each page showed products added through the other process's page;
- once the writers and the edits stop, both pages show the same table, equal to a fresh fetch in each
  process (/verify/table) and to the rows psql reads from the table itself.
"""
import os
import random
import time

from livetable import Checks, Postgres, Server, same_table, table_rows


def run(options, launch, ui_edit, wait_for):
    from playwright.sync_api import sync_playwright

    rng = random.Random(options.seed)
    check = Checks(options.seed)
    with Postgres() as database, sync_playwright() as p:
        store = database.store_url()
        schema = store.rsplit("schema=", 1)[1]
        print(f"PostgreSQL store {store}")
        writers = ("--writers", "2", "--interval", "80", "--verify")
        # The second process starts once the first has printed its address: the store is seeded by then.
        with Server(*writers, count=30, store=store) as a, Server(*writers, count=30, store=store, fresh=False) as b:
            browser = launch(p)
            pages = {label: browser.new_page(viewport={"width": 820, "height": 900}) for label in "AB"}
            for label, server in (("A", a), ("B", b)):
                pages[label].goto(server.url)
                check(wait_for(pages[label], "window.__log.length > 0"), f"page {label} got its snapshot")
            added = edit_both(pages, rng, options.seconds, ui_edit)
            for server in (a, b):
                server.post("/verify/quiesce")
            check_converged(check, pages, (a, b), database, schema)
            for label, other in (("A", "B"), ("B", "A")):
                log = pages[label].evaluate("window.__log")
                names = {r["name"] for rec in log for s in rec["sections"] for r in s["rows"]}
                check(any(name in names for name in added[other]) or not added[other],
                      f"page {label} showed products added through page {other} ({len(added[other])} added)")
                check(len(log) > 20, f"page {label}: {len(log)} batches applied")
                check(pages[label].evaluate("window.__applyFailures") == 0, f"page {label}: a batch did not fit the DOM")
            take_screenshots(pages, options.screenshot)
            check(a.alive() and b.alive(), "both processes are still running")
            browser.close()
    return check.report("browser_test --postgres")


def edit_both(pages, rng, seconds, ui_edit):
    """Edits through both pages in turn for `seconds`; returns the names each page added."""
    added, n, start = {"A": [], "B": []}, 0, time.time()
    while time.time() - start < seconds:
        n += 1
        label = "AB"[n % 2]
        try:
            name = ui_edit(pages[label], rng, n, label=f"Браузер {label}")
            if name:
                added[label].append(name)
        except Exception as error:  # a row that moved away under the click: go on
            print(f"  (edit {n} on page {label} retried: {str(error).splitlines()[0]})")
        time.sleep(rng.uniform(0.05, 0.2))
    print(f"{n} edits through the two pages in {seconds:.0f} s")
    return added


def check_converged(check, pages, servers, database, schema):
    """Once writes stop (an edit may still be on its way: read again until all agree, for at most 30 s):
    both processes' fresh fetches, psql's rows and both pages show one table."""
    deadline = time.time() + 30
    while True:
        fresh = [server.get("/verify/table")["sections"] for server in servers]
        rows = database.rows(schema)
        shown = {label: page.evaluate("window.__log.at(-1).sections") for label, page in pages.items()}
        agree = same_table(fresh[0], fresh[1]) and table_rows(fresh[0]) == rows
        if (agree and all(same_table(t, fresh[0]) for t in shown.values())) or time.time() > deadline:
            break
        time.sleep(0.3)
    check(same_table(fresh[0], fresh[1]), "the two processes' fresh fetches are equal")
    check(table_rows(fresh[0]) == rows, f"the fresh fetch equals the {len(rows)} rows psql reads")
    for label, table in shown.items():
        check(same_table(table, fresh[0]), f"page {label} equals the database once writes stop{difference(table, fresh[0])}")
        print(f"page {label}: {sum(len(s['rows']) for s in table)} rows in {len(table)} sections")


def difference(shown, fresh):
    """What a page shows that the fresh fetch does not, and the other way round (empty when equal)."""
    page, store = set(table_rows(shown)), set(table_rows(fresh))
    return "" if page == store else f": only on the page {sorted(page - store)}, only in the store {sorted(store - page)}"


def take_screenshots(pages, path):
    base, ext = os.path.splitext(os.path.abspath(path))
    os.makedirs(os.path.dirname(base), exist_ok=True)
    for label, page in pages.items():
        page.wait_for_timeout(500)
        page.screenshot(path=f"{base}-{label.lower()}{ext}", full_page=True)
        print(f"screenshot: {base}-{label.lower()}{ext}")
