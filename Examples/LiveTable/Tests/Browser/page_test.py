"""The page as a person meets it (issue #52, items 8 to 13), two pages in headless Chromium:

- writers touch only their own rows, and a page pauses and resumes them (both pages show it);
- a lost update is refused: A edits a row, B saves a change to it, A's save is refused with B's value shown,
  the store keeps B's value, and A's "Save mine" then replaces it knowingly;
- a row deleted under an edit: what A typed is kept (in the Add form) and the page says what happened;
  a refused Add keeps the form's values;
- the server stopped: the page says it is offline, dims the table and disables its controls, keeps what
  was typed; restarted on the same port, the page is live again and the offline message is gone;
- an edit happens in the row: Escape cancels (nothing sent), Enter saves;
- column headers, a row count, sorting by clicking a header and searching (the server's controller changes
  its request; the table stays live and equal to a fresh fetch in that order), Delete asks first, rows this
  page changed are marked, the status line has no commit numbers, /favicon.ico is served, and the demo's
  products are in their own categories.

With --postgres, the lost update across two live-table processes on one PostgreSQL database.

    python3 page_test.py [--seed N] [--postgres]
"""
import argparse
import re
import sys
import time
import urllib.parse
import urllib.request

from livetable import Checks, Postgres, Server, same_table
from browser_test import launch, wait_for

CATALOG = {"Йогурт": "Молочное", "Молоко": "Молочное", "Творог": "Молочное", "Кефир": "Молочное", "Масло": "Молочное",
           "Колбаса «Молочная»": "Колбасы", "Колбаса «Докторская»": "Колбасы", "Сыр": "Сыры", "Брынза": "Сыры",
           "Квас": "Напитки", "Морс": "Напитки", "Батон": "Хлеб", "Бородинский": "Хлеб"}


def row(page, name):
    return page.locator("tr.row", has=page.locator(f"td.name:text-is('{name}')"))


def add(page, name, price, category):
    page.fill("input[name=name]", name)
    page.fill("input[name=price]", str(price))
    page.fill("input[name=category]", category)
    page.click("#submit")


def stored(server, name):
    rows = [r for s in server.get("/verify/table")["sections"] for r in s["rows"] if r["name"] == name]
    return rows[0] if len(rows) == 1 else None


def writers_touch_only_their_own_rows_and_pause(check, server, a, b):
    add(a, "Мой квас", 123, "Напитки")
    check(wait_for(a, "document.querySelector('tr.row.mine') !== null", 10), "A's added row is marked as A's")
    check(a.input_value("input[name=name]") == "", "the Add form is cleared once the add is saved")
    check(wait_for(b, "[...document.querySelectorAll('td.name')].some(td => td.textContent === 'Мой квас')", 10), "B shows A's row")
    before = server.get("/verify/table")["commit"]
    time.sleep(3)
    after = server.get("/verify/table")["commit"]
    check(after > before + 5, f"the writers wrote meanwhile ({before} → {after})")
    mine = stored(server, "Мой квас")
    check(mine is not None and mine["price"] == 123 and mine["category"] == "Напитки", f"the writers left the person's row alone: {mine}")
    a.click("#writers-toggle")
    for label, page in (("A", a), ("B", b)):
        check(wait_for(page, "document.getElementById('writers-state').textContent.includes('paused')", 10), f"{label} shows the writers paused")
    time.sleep(0.5)
    paused = server.get("/verify/table")["commit"]
    time.sleep(1.5)
    check(server.get("/verify/table")["commit"] == paused, "no writer commits while paused")
    b.click("#writers-toggle")
    check(wait_for(a, "document.getElementById('writers-state').textContent.includes('running')", 10), "A shows the writers running again")
    time.sleep(1)
    check(server.get("/verify/table")["commit"] > paused, "the writers write again after resume")
    b.click("#writers-toggle")  # paused again: the rest of the test is about people
    check(wait_for(a, "document.getElementById('writers-state').textContent.includes('paused')", 10), "paused for the rest")


def lost_update_is_refused(check, server, a, b):
    row(a, "Мой квас").locator("button.edit").click()
    check(a.locator("tr.row.editing input.edit-price").count() == 1, "Edit opens inputs in the row itself")
    a.locator("tr.row.editing input.edit-price").fill("111")
    time.sleep(0.3)  # A's edit began (the server holds the row as A saw it)
    row(b, "Мой квас").locator("button.edit").click()
    b.locator("tr.row.editing input.edit-price").fill("222")
    b.locator("tr.row.editing input.edit-price").press("Enter")
    check(wait_for(b, "document.querySelector('tr.row.editing') === null", 10), "B's save closes B's edit")
    check(wait_for(a, "document.querySelector('tr.notice') !== null", 10), "A is told while editing that someone changed the row")
    check(a.locator("tr.row.editing input.edit-price").input_value() == "111", "A's typed price is still there")
    a.locator("tr.row.editing input.edit-price").press("Enter")
    check(wait_for(a, "window.__conflicts.length === 1", 10), "A's save is refused as a conflict")
    check("222" in a.locator("tr.notice").inner_text(), f"the refusal shows B's value: {a.locator('tr.notice').inner_text()}")
    check(stored(server, "Мой квас")["price"] == 222, "the store kept B's price (no lost update)")
    a.locator("button.save-mine").click()
    check(wait_for(a, "document.querySelector('tr.row.editing') === null", 10), "Save mine closes the edit")
    check(stored(server, "Мой квас")["price"] == 111, "Save mine replaced B's price, knowingly")
    check(wait_for(b, "[...document.querySelectorAll('tr.row')].some(tr => tr.dataset.name === 'Мой квас' && tr.dataset.price === '111')", 10),
          "B shows A's price")


def deleted_under_an_edit_keeps_the_typing(check, server, a, b):
    add(b, "Удаляемый батон", 45, "Хлеб")
    check(wait_for(a, "[...document.querySelectorAll('td.name')].some(td => td.textContent === 'Удаляемый батон')", 10), "A shows B's row")
    row(a, "Удаляемый батон").locator("button.edit").click()
    a.locator("tr.row.editing input.edit-name").fill("Батон нарезной")
    target = row(b, "Удаляемый батон")
    target.locator("button.delete").click()
    check(target.locator("button.confirm-delete").count() == 1, "Delete asks first")
    target.locator("button.confirm-delete").click()
    check(wait_for(a, "document.getElementById('message').textContent.includes('deleted by another page')", 10),
          f"A is told the row was deleted: {a.inner_text('#message')}")
    check(a.input_value("input[name=name]") == "Батон нарезной", "what A typed is kept in the Add form")
    a.fill("input[name=name]", "   ")
    a.fill("input[name=price]", "5")
    a.fill("input[name=category]", "Хлеб")
    a.click("#submit")
    check(wait_for(a, "window.__errors.length > 0", 10), "a blank name is refused by the server")
    check(a.input_value("input[name=price]") == "5" and a.input_value("input[name=category]") == "Хлеб", "a refused Add keeps the form's values")
    check("Not saved" in a.inner_text("#message"), f"and says so: {a.inner_text('#message')}")
    add(a, "Батон нарезной", 5, "Хлеб")
    check(wait_for(a, "document.getElementById('message').textContent === ''", 10),
          f"the message goes once its cause is gone (the add saved): {a.inner_text('#message')}")
    check(a.input_value("input[name=name]") == "", "and the saved add clears the form")


def escape_cancels_an_edit(check, server, a):
    before = server.get("/verify/table")["commit"]
    row(a, "Мой квас").locator("button.edit").click()
    a.locator("tr.row.editing input.edit-price").fill("999")
    a.locator("tr.row.editing input.edit-price").press("Escape")
    check(a.locator("tr.row.editing").count() == 0, "Escape leaves the edit")
    check(row(a, "Мой квас").locator("td.price").inner_text() == "111 ₽", "and shows the row as it was")
    time.sleep(0.5)
    check(server.get("/verify/table")["commit"] == before and stored(server, "Мой квас")["price"] == 111, "nothing was saved")


def headers_sort_search_and_marks(check, server, a, b):
    check(a.locator("thead th").all_inner_texts()[:3] == ["Name", "Price, ₽", "Category"], f"headers: {a.locator('thead th').all_inner_texts()}")
    shown = a.locator("tr.row").count()
    check(a.inner_text("#count") == f"{shown} products", f"the count: {a.inner_text('#count')} for {shown} rows")
    check(not re.search(r"commit \d", a.inner_text("#status")), f"the status is in words: {a.inner_text('#status')}")
    check(urllib.request.urlopen(server.url + "favicon.ico", timeout=10).status == 200, "/favicon.ico is served")
    seeded = [r for s in server.get("/verify/table")["sections"] for r in s["rows"] if r["name"] in CATALOG]
    wrong = [r for r in seeded if r["category"] != CATALOG[r["name"]]]
    check(seeded and not wrong, f"the demo's products are in their categories: {wrong[:3]}")
    check(row(a, "Мой квас").get_attribute("class").find("mine") >= 0, "the row A changed last is marked as A's")

    a.click("thead th.price")
    check(wait_for(a, "document.querySelector('thead th.price').textContent.includes('▲')", 10), "the price header shows the sort")
    time.sleep(0.5)
    dom = a.evaluate("window.__log.at(-1).sections")
    check(same_table(dom, server.get("/verify/table?sort=price")["sections"]), "sorted by price within each category, as a fresh fetch")
    a.click("thead th.price")
    time.sleep(0.7)
    dom = a.evaluate("window.__log.at(-1).sections")
    check(same_table(dom, server.get("/verify/table?sort=price&ascending=false")["sections"]), "a second click sorts descending")
    add(b, "Квас домашний", 7, "Напитки")
    time.sleep(0.7)
    dom = a.evaluate("window.__log.at(-1).sections")
    check(same_table(dom, server.get("/verify/table?sort=price&ascending=false")["sections"]), "B's insert lands in A's order, live")

    a.fill("input[name=search]", "квас")
    check(wait_for(a, "document.getElementById('count').textContent.includes('квас')", 10), "the count names the search")
    names = a.locator("td.name").all_inner_texts()
    check(names and all("квас" in n.lower() for n in names), f"only matching names are shown: {names}")
    add(b, "Квас хлебный", 9, "Напитки")
    add(b, "Бородинский", 60, "Хлеб")
    time.sleep(1)
    dom = a.evaluate("window.__log.at(-1).sections")
    expected = server.get("/verify/table?sort=price&ascending=false&search=" + urllib.parse.quote("квас"))["sections"]
    check(same_table(dom, expected), "the filtered table follows B's inserts live (one matches, one does not)")
    a.fill("input[name=search]", "")
    time.sleep(0.7)
    check(same_table(a.evaluate("window.__log.at(-1).sections"), server.get("/verify/table?sort=price&ascending=false")["sections"]),
          "clearing the search shows every product again")


def offline_and_back(check, server, a):
    a.fill("input[name=name]", "Набрано офлайн")
    port, store = server.port, server.store
    server.stop()
    check(wait_for(a, "document.body.classList.contains('offline')", 10), "the page knows the server is gone")
    check("Offline" in a.inner_text("#status"), f"and says so: {a.inner_text('#status')}")
    check(a.locator("#submit").is_disabled() and a.locator("button.edit").first.is_disabled(), "its actions are disabled")
    check(a.input_value("input[name=name]") == "Набрано офлайн", "what was typed is kept")
    again = Server("--port", str(port), count=30, store=store, fresh=False)
    try:
        check(wait_for(a, "!document.body.classList.contains('offline')", 20), "back online after the restart")
        check(not a.locator("#submit").is_disabled(), "actions enabled again")
        check("Offline" not in a.inner_text("#status") and "offline" not in a.inner_text("#message"), "no offline message stays")
        check(a.input_value("input[name=name]") == "Набрано офлайн", "the typing survived the reconnect")
    finally:
        again.stop()


def open_page(check, browser, url):
    """A page on `url`, once it shows its snapshot and is online."""
    page = browser.new_page(viewport={"width": 900, "height": 1000})
    page.goto(url)
    check(wait_for(page, "window.__log.length > 0 && !document.body.classList.contains('offline')"), f"the page on {url} got its snapshot")
    return page


def across_processes(check, launch):
    """The lost update across two processes on one PostgreSQL database: page A on one, page B on the other.
    The refusal comes from the database (the row's optimistic-locking version), not from one process's memory."""
    from playwright.sync_api import sync_playwright
    with Postgres() as database, sync_playwright() as p:
        store = database.store_url()
        with Server(count=10, store=store) as one, Server(count=10, store=store, fresh=False) as two:
            browser = launch(p)
            a, b = open_page(check, browser, one.url), open_page(check, browser, two.url)
            add(a, "Мой квас", 123, "Напитки")
            check(wait_for(b, "[...document.querySelectorAll('td.name')].some(td => td.textContent === 'Мой квас')", 20),
                  "B, on the other process, shows A's row")
            lost_update_is_refused(check, one, a, b)
            check(stored(two, "Мой квас")["price"] == 111, "the other process reads A's price too")
            browser.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--postgres", action="store_true", help="the lost update across two processes on one PostgreSQL database")
    options = parser.parse_args()
    check = Checks(options.seed)
    if options.postgres:
        across_processes(check, launch)
        return check.report("page_test --postgres")
    from playwright.sync_api import sync_playwright
    with Server("--writers", "2", "--interval", "100", "--verify", count=24) as server, sync_playwright() as p:
        browser = launch(p)
        a, b = open_page(check, browser, server.url), open_page(check, browser, server.url)
        for step in (writers_touch_only_their_own_rows_and_pause, lost_update_is_refused, deleted_under_an_edit_keeps_the_typing):
            step(check, server, a, b)
        escape_cancels_an_edit(check, server, a)
        headers_sort_search_and_marks(check, server, a, b)
        for page in (a, b):
            check(page.evaluate("window.__applyFailures") == 0, "every batch fitted the page")
        offline_and_back(check, server, a)
        browser.close()
    return check.report("page_test")


if __name__ == "__main__":
    sys.exit(main())
