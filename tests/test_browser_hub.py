"""The dashboard in headless Chromium over the real table (app.hub.TableHub: referee, log,
single writer) served by waitress on 127.0.0.1."""

from __future__ import annotations

import time

import pytest
from test_browser_dashboard import CHROMIUM, PHONE, browser, shot  # noqa: F401 - fixture

from web_ui.app import create_app
from web_ui.server import BackgroundServer

pytest.importorskip("playwright", reason="the playwright package drives the browser")
hub_mod = pytest.importorskip("app.hub", reason="the app hub (app/hub.py) is not there yet")
from playwright.sync_api import expect  # noqa: E402

from table.log import MemoryLog  # noqa: E402
from table.rules import load_rules  # noqa: E402

PIN = "908172"
TOKENS = {0: "real0-token-aaaa", 1: "real1-token-bbbb", 2: "real2-token-cccc", 3: "real3-token-dddd"}

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium (apt-get install -y chromium)"),
]


@pytest.fixture
def table():
    hub = hub_mod.TableHub(MemoryLog(load_rules("official")), ["Ana", "Ben", "Cy", "Dee"]).start()
    app = create_app(hub, host_pin=PIN, seat_tokens=TOKENS, state_interval=0.2)
    with BackgroundServer(app) as srv:
        yield hub, srv
    hub.close()


@pytest.fixture
def page(browser, table):  # noqa: F811
    ctx = browser.new_context(viewport=PHONE)
    pg = ctx.new_page()
    pg.errors = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    yield pg
    ctx.close()


def deal(hub):
    hub.submit({"kind": "start_round", "dealer": 3}, source="host")
    hub.submit({"kind": "flip", "card": "red-5"}, source="vision")


def test_a_refereed_play_appears_within_a_second(page, table):
    hub, srv = table
    deal(hub)
    page.goto(srv.url + "/")
    page.wait_for_selector("#live.on")
    start = time.monotonic()
    hub.submit({"kind": "play", "cards": ["red-7"]}, source="vision")
    expect(page.locator("#events")).to_contain_text("Ana plays red 7", timeout=1000)  # names, not seats
    assert time.monotonic() - start < 1.0
    expect(page.locator("#top-card")).to_contain_text("Red 7", timeout=2000)
    expect(page.locator("#turn")).to_contain_text("Ben (seat 1)")
    shot(page, "hub-table")
    assert page.errors == []


def test_setup_changes_the_referees_rules(page, table):
    hub, srv = table
    page.goto(f"{srv.url}/login?next=/setup")
    page.fill("#pin", PIN)
    page.click("#login-form button[type=submit]")
    page.wait_for_selector("[data-path='uno.strict']")
    page.check("[data-path='uno.strict']")
    page.fill("[data-path='scoring.target']", "250")
    page.fill("#name-0", "Anabel")
    page.click("#save-setup")
    expect(page.locator("#setup-msg")).to_have_text("Setup saved.", timeout=3000)
    assert hub.rules_config.uno.strict is True and hub.rules_config.scoring.target == 250
    assert hub.snapshot()["seats"][0]["name"] == "Anabel"
    assert page.errors == []


def test_a_host_correction_shows_up(browser, page, table):  # noqa: F811
    hub, srv = table
    deal(hub)
    hub.submit({"kind": "play", "cards": ["red-7"]}, source="vision")
    watcher = browser.new_page(viewport=PHONE)
    watcher.goto(srv.url + "/")
    expect(watcher.locator("#top-card")).to_contain_text("Red 7", timeout=3000)
    assert page.request.post(srv.url + "/api/login", data={"pin": PIN}).ok
    page.goto(srv.url + "/host")
    page.wait_for_selector("#c-entry option[value='3']", state="attached")
    page.select_option("#c-entry", "3")
    page.select_option("#c-card", "red-2")
    page.click("#correct-form button[type=submit]")
    expect(page.locator("#host-msg")).to_have_text("Card corrected.", timeout=3000)
    expect(watcher.locator("#top-card")).to_contain_text("Red 2", timeout=2000)
    assert hub.snapshot()["top_card"] == "red-2"
    shot(watcher, "hub-table-after-correction")
    watcher.close()
    assert page.errors == []


def test_a_seat_press_reaches_the_referee(page, table):
    hub, srv = table
    deal(hub)
    page.goto(f"{srv.url}/seat/0?t={TOKENS[0]}")
    expect(page.locator("#seat-state")).to_contain_text("Your turn", timeout=3000)
    page.click("button[data-action='draw']")
    expect(page.locator("#seat-msg")).to_have_text("Sent: draw", timeout=3000)
    entry = hub.log_entries(kind="draw", limit=5)[-1]
    assert entry["seat"] == 0 and entry["source"] == "seat:0"
    expect(page.locator("#seat-state")).to_contain_text("8 cards", timeout=3000)
    shot(page, "hub-seat-controller")
    assert page.errors == []


def test_a_preset_loads_over_the_defaults_and_starts_a_two_player_match(page, table):
    hub, srv = table
    assert page.request.post(srv.url + "/api/login", data={"pin": PIN}).ok
    page.goto(srv.url + "/setup")
    page.wait_for_selector("[data-path='uno.strict']")
    page.check("[data-path='uno.strict']")  # a change the preset must undo
    page.select_option("#preset", "two-player")
    page.click("#load-preset")
    expect(page.locator("[data-path='players']")).to_have_value("2")
    assert page.locator("#names input").count() == 2
    assert not page.is_checked("[data-path='uno.strict']")
    assert page.input_value("[data-path='scoring.target']") == "500"
    page.click("#save-setup")
    expect(page.locator("#setup-msg")).to_have_text("Setup saved.", timeout=3000)
    assert hub.rules_config.players == 2 and hub.preset == "two-player"
    assert [s["name"] for s in hub.snapshot()["seats"]] == ["Ana", "Ben"]
    assert page.errors == []
