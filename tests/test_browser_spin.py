"""H13 UNO Spin in headless Chromium on a 390-px phone, over the real table (app.hub.TableHub):
a spin is due, the seat taps "Spin the wheel", the server draws the roll, the referee reads
the wheel, and every phone's wheel turns to the logged outcome."""

from __future__ import annotations

import pytest
from test_browser_dashboard import CHROMIUM, PHONE, browser, shot  # noqa: F401 - fixture

from web_ui.app import create_app
from web_ui.server import BackgroundServer

pytest.importorskip("playwright", reason="the playwright package drives the browser")
from playwright.sync_api import expect  # noqa: E402

from app.hub import TableHub  # noqa: E402
from table.log import MemoryLog  # noqa: E402
from table.rules import load_rules  # noqa: E402

PIN = "264810"
TOKENS = {0: "wheel0-token-aaaa", 1: "wheel1-token-bbbb", 2: "wheel2-token-cccc", 3: "wheel3-token-dddd"}

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium (apt-get install -y chromium)"),
]


@pytest.fixture
def table():
    rolls = [0.55]  # segment 3 of 6: draw until blue
    rules = load_rules("official", overrides={"house": {"spin": True}})
    hub = TableHub(MemoryLog(rules), ["Ana", "Ben", "Cy", "Dee"], roll=lambda: rolls.pop(0)).start()
    app = create_app(hub, host_pin=PIN, seat_tokens=TOKENS, state_interval=0.2)
    with BackgroundServer(app) as srv:
        yield hub, srv
    hub.close()


def phone(browser, srv):  # noqa: F811
    ctx = browser.new_context(viewport=PHONE, device_scale_factor=1)
    pg = ctx.new_page()
    pg.errors, pg.outside = [], []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    pg.on("console", lambda m: m.type == "error" and pg.errors.append(m.text))
    pg.on("request", lambda r: r.url.startswith(srv.url) or r.url.startswith("data:") or pg.outside.append(r.url))
    return ctx, pg


def fits(pg) -> bool:
    return pg.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.rule("H13")
def test_the_seat_taps_spin_and_every_phone_s_wheel_shows_the_logged_outcome(browser, table):  # noqa: F811
    hub, srv = table
    hub.submit({"kind": "start_round", "dealer": 3})
    hub.submit({"kind": "flip", "card": "blue-5"})
    hub.submit({"kind": "play", "cards": ["blue-7"]})  # Ana's 7 carries the spin: Ben spins
    seat_ctx, seat = phone(browser, srv)
    table_ctx, watcher = phone(browser, srv)
    seat.goto(f"{srv.url}/seat/1?t={TOKENS[1]}")
    watcher.goto(srv.url + "/")
    for pg in (seat, watcher):
        expect(pg.locator("#wheel-panel")).to_be_visible(timeout=3000)
        expect(pg.locator("#wheel-result")).to_have_text("Ben (seat 1) must spin the wheel")
        # the six segments are the referee's, in its order
        assert pg.locator("#wheel .wheel-label").all_inner_texts() == [
            "draw until red", "draw until yellow", "draw until green", "draw until blue", "down to two", "trade hands",
        ]  # fmt: skip
    expect(watcher.locator("#awaiting")).to_contain_text("Ben (seat 1) must spin the wheel")
    assert watcher.locator("#spin-button").is_hidden()  # the table page only watches
    expect(seat.locator("#spin-button")).to_be_visible()
    expect(seat.locator("#seat-state")).to_contain_text("Spin the wheel!")
    assert fits(seat) and fits(watcher)
    shot(seat, "spin-due-seat")

    seat.click("#spin-button")
    entry = None
    for pg in (seat, watcher):  # the wheel turns, then says what it stopped on
        expect(pg.locator("#wheel-panel")).to_have_attribute("data-outcome", "draw-until-colour", timeout=6000)
        expect(pg.locator("#wheel-panel")).to_have_attribute("data-segment", "3")
        expect(pg.locator("#wheel-result")).to_have_text("Ben spins: draw until a blue card comes (H13)")
        assert pg.evaluate("getComputedStyle(document.getElementById('wheel')).transform") != "none"
    entry = hub.log_entries(limit=1)[-1]
    assert entry["kind"] == "spin" and entry["source"] == "seat:1"
    assert entry["payload"] == {"kind": "spin", "seat": 1, "roll": 0.55}
    assert entry["text"] == "Ben spins: draw until a blue card comes (H13)"
    assert hub.snapshot()["spin"] == {"seat": 1, "outcome": "draw-until-colour", "colour": "blue"}
    expect(seat.locator("#spin-button")).to_be_hidden()
    expect(watcher.locator("#events")).to_contain_text("Ben spins: draw until a blue card comes")
    assert fits(seat) and fits(watcher)
    shot(watcher, "spin-landed-table")
    for pg in (seat, watcher):
        assert pg.errors == [] and pg.outside == []
    seat_ctx.close()
    table_ctx.close()


@pytest.mark.rule("H13")
def test_the_host_page_spins_for_the_seat(browser, table):  # noqa: F811
    hub, srv = table
    hub.submit({"kind": "start_round", "dealer": 3})
    hub.submit({"kind": "flip", "card": "blue-5"})
    hub.submit({"kind": "play", "cards": ["blue-7"]})
    ctx, host = phone(browser, srv)
    assert host.request.post(srv.url + "/api/login", data={"pin": PIN}).ok
    host.goto(srv.url + "/host")
    expect(host.locator("#spin-button")).to_be_visible(timeout=3000)
    host.click("#spin-button")
    expect(host.locator("#wheel-panel")).to_have_attribute("data-colour", "blue", timeout=6000)
    assert hub.log_entries(limit=1)[-1]["payload"] == {"kind": "spin", "seat": 1, "roll": 0.55}
    assert host.errors == []
    ctx.close()
