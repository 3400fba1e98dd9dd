"""The dashboard in a real headless Chromium (Debian's chromium driven by Playwright) against
a real waitress server on 127.0.0.1. Screenshots go to test-artifacts/ (gitignored)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

pytest.importorskip("playwright", reason="the playwright package drives the browser (pip install '.[test]')")
from playwright.sync_api import expect  # noqa: E402
from web_fakes import FakeTableService

from web_ui.app import create_app
from web_ui.server import BackgroundServer

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
PIN = "731905"
TOKENS = {0: "seat0-token-aaaa", 1: "seat1-token-bbbb", 2: "seat2-token-cccc", 3: "seat3-token-dddd"}
PHONE = {"width": 390, "height": 844}

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium (apt-get install -y chromium)"),
]


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"],
        )  # fmt: skip
        yield b
        b.close()


@pytest.fixture
def table():
    svc = FakeTableService(seats=4, names=["Ana", "Ben", "Cy", "Dee"])
    app = create_app(svc, host_pin=PIN, seat_tokens=TOKENS, heartbeat=2.0, state_interval=0.2)
    with BackgroundServer(app) as srv:
        yield svc, srv


@pytest.fixture
def page(browser, table):
    _, srv = table
    ctx = browser.new_context(viewport=PHONE, device_scale_factor=1)
    pg = ctx.new_page()
    pg.errors = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    pg.on("console", lambda m: m.type == "error" and pg.errors.append(m.text))
    pg.outside = []
    pg.on("request", lambda r: r.url.startswith(srv.url) or r.url.startswith("data:") or pg.outside.append(r.url))
    yield pg
    ctx.close()


def shot(pg, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    pg.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def login(pg, srv, next_path: str) -> None:
    pg.goto(f"{srv.url}/login?next={next_path}")
    pg.fill("#pin", PIN)
    pg.click("#login-form button[type=submit]")
    pg.wait_for_url(f"**{next_path}")


def test_an_event_appears_on_the_table_page_within_a_second(page, table):
    svc, srv = table
    svc.submit({"kind": "start_round"}, source="host")
    page.goto(srv.url + "/")
    page.wait_for_selector("#live.on", timeout=5000)
    expect(page.locator("body")).to_have_attribute("data-seq", "1", timeout=5000)
    # what happened before the page opened is back-filled into the feed
    expect(page.locator("#events li[data-seq='1']")).to_contain_text("round starts", timeout=2000)
    start = time.monotonic()
    svc.submit({"kind": "play", "cards": ["green-skip"], "seat": 0}, source="vision")
    page.wait_for_selector("#events li[data-seq='2']", timeout=1000)
    elapsed = time.monotonic() - start
    assert elapsed < 1.0
    assert "seat 0 plays green-skip" in page.inner_text("#events")
    # the state follows (rate-limited): colour and card in words, not only in colour
    expect(page.locator("#colour-name")).to_have_text("GREEN", timeout=2000)
    assert page.inner_text("#top-card") == "⊘\nGreen Skip"
    assert "Ben (seat 1)" in page.inner_text("#turn")
    shot(page, "table-after-event")
    assert page.errors == [] and page.outside == []


@pytest.mark.parametrize(
    "path,ready",
    [
        ("/", "#live.on"),
        ("/scores", "#score-table thead th"),
        ("/log", "#log tbody tr"),
        ("/setup", "#rules-form [data-path='house.jump_in']"),
        ("/host", "#c-entry option"),
        ("/panel", "#seat-buttons button"),
        ("/camera", "#camera"),
        ("/seat/1?t=" + TOKENS[1], "#live.on"),
    ],
)
def test_every_page_fits_a_390_px_phone(page, table, path, ready):
    svc, srv = table
    svc.submit({"kind": "start_round"}, source="host")
    svc.submit({"kind": "play", "cards": ["wild-draw4"], "seat": 0}, source="vision")
    svc.add_round([0, 120, 35, 64])
    # log in through the API: the context shares its cookie jar with the page
    assert page.request.post(srv.url + "/api/login", data={"pin": PIN}).ok
    page.goto(srv.url + path, wait_until="domcontentloaded")
    page.wait_for_selector(ready, state="attached", timeout=5000)
    page.wait_for_timeout(300)
    width = page.evaluate("Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)")
    assert width <= PHONE["width"], f"{path} is {width}px wide"
    name = "page-" + (path.strip("/").split("?")[0].replace("/", "-") or "table")
    shot(page, name)
    assert page.errors == [] and page.outside == []


def test_setup_changes_the_rules(page, table):
    svc, srv = table
    login(page, srv, "/setup")
    page.wait_for_selector("#rules-form [data-path='uno.strict']")
    # every house rule of RULES.md is offered, generated from the rules schema
    for key in svc.rules_config.house.model_dump():
        assert page.locator(f"[data-path='house.{key}']").count() == 1, key
    page.fill("[data-path='players']", "3")
    page.locator("[data-path='players']").dispatch_event("input")
    assert page.locator("#names input").count() == 3
    page.fill("#name-2", "Cyrus")
    page.check("[data-path='uno.strict']")
    page.fill("[data-path='scoring.target']", "300")
    page.fill("[data-path='play.illegal_play_penalty']", "0")
    page.click("#save-setup")
    expect(page.locator("#setup-msg")).to_have_text("Setup saved.", timeout=3000)
    rules = svc.rules_config
    assert rules.players == 3 and rules.uno.strict is True
    assert rules.scoring.target == 300 and rules.play.illegal_play_penalty == 0
    assert svc.names == ["Ana", "Ben", "Cyrus"]
    shot(page, "setup-saved")
    # a refused change says why and changes nothing
    page.check("[data-path='house.deflect']")
    page.click("#apply-rules")
    page.wait_for_selector(".toast.bad", timeout=3000)
    assert "deflect" in page.inner_text("#toast")
    assert svc.rules_config.house.deflect is False
    # the only console error is the refused request itself (Chromium logs every 4xx)
    assert [e for e in page.errors if "status of 400" not in e] == [] and page.outside == []


def test_a_host_correction_shows_up_on_the_table(browser, page, table):
    svc, srv = table
    svc.submit({"kind": "start_round"}, source="host")
    svc.submit({"kind": "play", "cards": ["blue-3"]}, source="vision")
    watcher = browser.new_page(viewport=PHONE)
    watcher.goto(srv.url + "/")
    expect(watcher.locator("#top-card")).to_contain_text("Blue 3", timeout=5000)
    login(page, srv, "/host")
    page.wait_for_selector("#c-entry option", state="attached")
    page.select_option("#c-entry", "2")
    page.select_option("#c-card", "blue-8")
    page.select_option("#c-seat", "0")
    page.click("#correct-form button[type=submit]")
    page.wait_for_selector(".toast.ok", timeout=3000)
    assert svc.submitted[-1] == (
        {"kind": "amend", "target": 2, "input": {"kind": "play", "cards": ["blue-8"], "seat": 0}},
        "host",
    )
    expect(watcher.locator("#top-card")).to_contain_text("Blue 8", timeout=2000)
    watcher.wait_for_selector("#events li[data-type='state_rebuilt']", timeout=2000)
    shot(page, "host-corrected")
    shot(watcher, "table-after-correction")
    watcher.close()
    assert page.errors == [] and page.outside == []


def test_a_seat_controller_press_reaches_the_table(page, table):
    svc, srv = table
    svc.submit({"kind": "start_round"}, source="host")
    page.goto(f"{srv.url}/seat/2?t={TOKENS[2]}")
    page.wait_for_selector("#live.on")
    assert "Cy" in page.inner_text("#seat-title")
    page.click("button[data-action='uno']")
    expect(page.locator("#seat-msg")).to_have_text("Sent: uno", timeout=3000)
    assert svc.submitted[-1] == ({"kind": "call_uno", "seat": 2}, "seat:2")
    page.click("button[data-colour='blue']")
    expect(page.locator("#seat-msg")).to_have_text("Sent: colour blue", timeout=3000)
    assert svc.submitted[-1] == ({"kind": "colour", "colour": "blue", "seat": 2}, "seat:2")
    shot(page, "seat-controller")
    assert page.errors == [] and page.outside == []


def test_a_seat_link_with_a_wrong_token_shows_no_controls(page, table):
    _, srv = table
    resp = page.goto(f"{srv.url}/seat/2?t={TOKENS[1]}")
    assert resp.status == 403
    assert page.locator("button[data-action]").count() == 0
    assert "not valid" in page.inner_text("#error-message")


def test_virtual_panel_presses_and_shows_the_buzzer(page, table):
    svc, srv = table
    login(page, srv, "/panel")
    page.wait_for_selector("button[data-target='seat:1'][data-gesture='hold']")
    page.click("button[data-target='seat:1'][data-gesture='hold']")
    expect(page.locator("#panel-msg")).to_have_text("seat:1 hold", timeout=3000)
    assert svc.presses == [("seat:1", "hold")]
    page.click("button[data-target='colour:green']")
    expect(page.locator("#panel-msg")).to_have_text("colour:green press", timeout=3000)
    assert svc.presses[-1] == ("colour:green", "press")
    svc.emit("buzzer", {"pattern": "warning"})
    expect(page.locator("#buzzer-now")).to_contain_text("illegal play", timeout=2000)
    shot(page, "virtual-panel")
    assert page.errors == [] and page.outside == []


def test_scores_page_draws_the_running_totals_chart(page, table):
    svc, srv = table
    svc.add_round([0, 120, 35, 64])
    svc.add_round([40, 0, 35, 10])
    page.goto(srv.url + "/scores")
    page.wait_for_selector("#chart svg polyline")
    assert page.locator("#chart polyline").count() == 4
    assert page.locator("#score-table tbody tr").count() == 2
    assert page.inner_text("#score-table tfoot").split() == ["Total", "40", "120", "70", "74"]
    svc.add_round([0, 500, 0, 0])
    page.wait_for_selector("#score-table tbody tr:nth-child(3)", timeout=3000)
    expect(page.locator("#winner")).to_be_visible(timeout=3000)
    assert "Ben" in page.inner_text("#winner")
    shot(page, "scores")
    assert page.errors == [] and page.outside == []


def test_wrong_pin_is_explained_on_the_login_page(page, table):
    _, srv = table
    page.goto(srv.url + "/login")
    page.fill("#pin", "000000")
    page.click("#login-form button[type=submit]")
    expect(page.locator("#login-msg")).to_contain_text("wrong PIN", timeout=3000)
    page.goto(srv.url + "/setup")
    assert page.locator("#rules-form").count() == 0


def test_the_page_resumes_after_dropped_streams_without_missing_or_repeating(browser):
    """Streams cut every 0.6 s (max_stream_age) while events flow: EventSource reconnects
    with Last-Event-ID and the feed still holds every event once, in order."""
    svc = FakeTableService(seats=4)
    app = create_app(svc, host_pin=PIN, seat_tokens=TOKENS, max_stream_age=0.6, state_interval=0.2)
    streams: list[str | None] = []

    @app.before_request
    def note_stream():
        from flask import request

        if request.path == "/api/stream":
            streams.append(request.headers.get("Last-Event-ID"))

    with BackgroundServer(app) as srv:
        pg = browser.new_page(viewport=PHONE)
        pg.goto(srv.url + "/")
        pg.wait_for_selector("#live.on")
        for i in range(30):
            svc.emit("notice", {"text": f"tick {i + 1}"})
            time.sleep(0.08)
        expect(pg.locator("#events li[data-seq='30']")).to_be_attached(timeout=5000)
        seqs = [int(x) for x in pg.locator("#events li").evaluate_all("els => els.map(e => e.dataset.seq)")]
        pg.close()
    assert len(streams) >= 2 and streams[0] is None  # it did reconnect, with Last-Event-ID
    assert all(h is not None and h.isdigit() for h in streams[1:]), streams
    assert seqs == list(range(30, 0, -1))  # newest first, each exactly once


def test_camera_page_shows_the_annotated_stream(page, table):
    import cv2
    import numpy as np

    svc, srv = table
    page.goto(srv.url + "/camera", wait_until="domcontentloaded")
    expect(page.locator("#camera-note")).to_have_attribute("data-state", "none", timeout=3000)
    frame = np.full((120, 160, 3), (40, 120, 40), np.uint8)
    cv2.putText(frame, "red-7", (10, 60), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (255, 255, 255), 2)
    svc.push_frame(cv2.imencode(".jpg", frame)[1].tobytes())
    deadline = time.monotonic() + 3
    while page.evaluate("document.getElementById('camera').naturalWidth") != 160 and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    assert page.evaluate("document.getElementById('camera').naturalWidth") == 160
    shot(page, "camera")


def test_log_page_keeps_up_with_a_steady_stream_and_filters(page, table):
    svc, srv = table
    svc.submit({"kind": "start_round"}, source="host")
    page.goto(srv.url + "/log")
    page.wait_for_selector("#log tbody tr[data-seq='1']", state="attached")
    import threading

    def steady():  # faster than the page's refresh interval: the page must not starve
        for i in range(20):
            svc.submit({"kind": "draw", "seat": i % 4}, source=f"seat:{i % 4}")
            time.sleep(0.1)

    feeder = threading.Thread(target=steady)
    feeder.start()
    # entry 5 is logged ~0.4 s in; it shows while entries keep coming every 0.1 s
    expect(page.locator("#log tbody tr[data-seq='5']")).to_be_attached(timeout=1200)
    assert feeder.is_alive()
    feeder.join()
    expect(page.locator("#log tbody tr[data-seq='21']")).to_be_attached(timeout=2000)
    page.select_option("#f-seat", "2")
    page.click("#log-filter button[type=submit]")
    expect(page.locator("#log tbody tr")).to_have_count(5, timeout=2000)  # seat 2's five draws
    shot(page, "log-filtered")
    assert page.errors == [] and page.outside == []
