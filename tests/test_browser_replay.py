"""The host's eye in headless Chromium on a 390-px phone: a demo round with a misread card,
the Host page asks with the card's crop, one tap fixes it (the log shows the amend, the score
follows), and a camera entry's clip plays on the Log page, frames advancing."""

from __future__ import annotations

from collections import namedtuple

import cv2
import numpy as np
import pytest
from test_browser_dashboard import ARTIFACTS, CHROMIUM, PHONE, browser, shot  # noqa: F401 - fixture

from app.demo import DemoDriver, PerfectCamera
from app.hub import TableHub
from table.log import EventLog
from table.rules import load_rules
from vision.config import ReplayConfig
from vision.replay import ReplayRecorder
from web_ui.app import create_app
from web_ui.server import BackgroundServer

pytest.importorskip("playwright", reason="the playwright package drives the browser")
from playwright.sync_api import expect  # noqa: E402

PIN = "550132"
TOKENS = {0: "rp0-token-aaaaaa", 1: "rp1-token-bbbbbb", 2: "rp2-token-cccccc", 3: "rp3-token-dddddd"}
Usage = namedtuple("Usage", "total used free")
COLOUR_BGR = {"red": (50, 50, 220), "yellow": (40, 200, 240), "green": (60, 160, 60), "blue": (200, 120, 40)}

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium (apt-get install -y chromium)"),
]


def misread_of(card: str) -> str:
    """A face worth other points than `card` (so the score shows the fix)."""
    colour, _, rank = card.partition("-")
    if card.startswith("wild"):
        return "red-5"
    return f"{colour}-skip" if rank.isdigit() else f"{colour}-5"


class FramedCamera(PerfectCamera):
    """The demo's perfect camera, drawing each frame for the replay recorder (cards as coloured
    blocks with their names), that misreads the first card of the first hand revealed for
    scoring: the true face is its runner-up, close behind."""

    def __init__(self, recorder: ReplayRecorder, scoring, fps: float = 10.0):
        super().__init__()
        self.rec, self.fps = recorder, fps
        self.scoring = scoring  # is the round over (a revealed hand is scored)?
        self.misread: tuple[str, str] | None = None

    def act(self, action: str, cards: tuple[str, ...] = ()) -> None:
        super().act(action, cards)
        if action == "reveal" and cards and self.misread is None and self.scoring():
            right = cards[0]
            wrong = misread_of(right)
            self._queue[-1]["cards"][0] = {"card": wrong, "confidence": 0.48,
                                           "candidates": [[wrong, 0.48], [right, 0.44], ["green-0", 0.03]]}
            self._queue[-1]["confidence"] = 0.48
            self.misread = (right, wrong)

    def step(self):
        out = super().step()
        n, t = self.frame, self.frame / self.fps
        img = np.full((720, 1280, 3), (40, 90, 40), np.uint8)
        cv2.putText(img, f"frame {n}", (30, 60), cv2.FONT_HERSHEY_SIMPLEX, 1.5, (255, 255, 255), 3)
        dets = []
        for o in out:
            o["timestamp"] = t
            for i, c in enumerate(o.get("cards", [])):
                x = 200 + 140 * i
                c["box"] = [x, 250, x + 110, 420]
                colour = COLOUR_BGR.get(c["card"].split("-")[0], (30, 30, 30))
                cv2.rectangle(img, (x, 250), (x + 110, 420), colour, -1)
                cv2.putText(img, c["card"].split("-")[-1], (x + 10, 350), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (255, 255, 255), 3)
                dets.append(_Det(c["card"], c.get("confidence", 1.0), tuple(c["box"])))
        self.rec.add_frame(n, t, img, dets, out)
        return out


class _Det:
    def __init__(self, card, confidence, box):
        self.card, self.confidence, self.box, self.quad = card, confidence, box, None


@pytest.fixture
def played(tmp_path):
    """A demo round (perfect camera but one misread card in a revealed hand), the host not
    correcting it: the table's score is off by that card."""
    rules = load_rules("official")
    rec = ReplayRecorder(ReplayConfig(), sync=True, disk_usage=lambda _p: Usage(10**12, 0, 10**12))
    hub = TableHub(EventLog(tmp_path / "match-1.db", rules), ["Ana", "Ben", "Cy", "Dee"], replay=rec)
    camera = FramedCamera(rec, lambda: hub.state.phase == "round-over")
    driver = DemoDriver(hub, camera, seed=3, host_corrects=False)
    report = driver.play(1)
    for _ in range(30):  # the table keeps filming after the round: the last clips close
        camera.step()
    rec.flush()
    assert camera.misread is not None and report.questions == 1 and report.wrong_asked == 1
    hub.start()
    app = create_app(hub, host_pin=PIN, seat_tokens=TOKENS, state_interval=0.2)
    with BackgroundServer(app) as srv:
        yield hub, srv, driver, camera
    hub.close()
    rec.close()


@pytest.fixture
def phone(browser):  # noqa: F811
    ctx = browser.new_context(viewport=PHONE, device_scale_factor=1)
    pg = ctx.new_page()
    pg.set_default_timeout(15000)  # a loaded test machine: pages and clips take their time
    expect.set_options(timeout=15000)
    pg.errors = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    # a clip that is missing or pruned answers 404 or 410 on purpose (the player says why)
    pg.on("console", lambda m: m.type == "error" and not ("404" in m.text or "410" in m.text) and pg.errors.append(m.text))
    yield pg
    expect.set_options(timeout=5000)  # Playwright's default again for the other tests
    ctx.close()


def wait_until(pg, js: str, timeout: float = 10.0) -> None:
    """Poll `js` in the page (the CSP forbids the evaluated predicates of wait_for_function)."""
    import time

    deadline = time.monotonic() + timeout
    while not pg.evaluate(js):
        assert time.monotonic() < deadline, f"timed out waiting for {js}"
        pg.wait_for_timeout(100)


def no_sideways_scroll(pg) -> None:
    wide = pg.evaluate("""() => [...document.querySelectorAll('body *')]
        .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
        .map((e) => `${e.tagName}#${e.id}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`).slice(0, 8)""")
    assert pg.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], wide


def test_the_host_is_asked_with_the_crop_and_one_tap_fixes_the_score(phone, played):
    hub, srv, driver, camera = played
    right, wrong = camera.misread
    truth = list(driver.sim.state.scores)
    assert list(hub.scores()["totals"].values()) != truth  # the misread card scored wrong
    assert phone.request.post(srv.url + "/api/login", data={"pin": PIN}).ok
    phone.goto(srv.url + "/host")
    q = phone.locator("#questions li.question")
    expect(q).to_have_count(1, timeout=15000)
    expect(q).to_contain_text(f"revealed {wrong.replace('-', ' ')}")
    crop = q.locator("img.crop")
    expect(crop).to_be_visible()
    wait_until(phone, "() => document.querySelector('#questions img.crop').naturalWidth > 0")
    expect(q.locator("button.answer")).to_have_count(3)
    no_sideways_scroll(phone)
    shot(phone, "replay-host-question")
    q.locator(f"button.answer[data-card='{right}']").click()
    expect(phone.locator("#questions li.question")).to_have_count(0, timeout=15000)
    expect(phone.locator("#questions-none")).to_be_visible()
    assert list(hub.scores()["totals"].values()) == truth  # the score follows the answer
    last = hub.log.inputs()[-1]
    assert last.kind == "amend" and right in last.input["cards"]
    phone.goto(srv.url + "/log")
    expect(phone.locator("#log tbody tr[data-kind='amend']")).to_have_count(1, timeout=15000)
    expect(phone.locator("#log tbody tr[data-kind='amend']")).to_contain_text("amend of log entry")
    phone.goto(srv.url + "/scores")
    winner = max(range(4), key=lambda s: truth[s])
    expect(phone.locator("#score-table tfoot")).to_contain_text(str(truth[winner]), timeout=15000)
    assert phone.errors == []


def test_a_camera_entry_replays_on_the_log_page_frames_advancing(phone, played):
    hub, srv, _, _ = played
    plays = [e["seq"] for e in hub.log_entries(kind="play", limit=0) if e["payload"].get("source") == "camera"]
    entry = plays[len(plays) // 2]
    phone.goto(srv.url + "/log")
    button = phone.locator(f"#log tbody tr[data-seq='{entry}'] .replay-btn")
    expect(button).to_be_visible(timeout=15000)
    button.click()
    dlg = phone.locator("dialog#replay")
    expect(dlg).to_have_attribute("data-state", "ok", timeout=15000)
    wait_until(phone, "() => Number(document.querySelector('dialog#replay').dataset.shown) >= 3")
    seen = set()
    for _ in range(6):
        seen.add(dlg.get_attribute("data-frame"))
        phone.wait_for_timeout(150)
    assert len(seen) >= 2  # the frames advance
    # the canvas shows a picture (not blank) with the entry's number drawn on it
    lit = phone.evaluate("""() => { const c = document.getElementById('replay-canvas');
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let n = 0; for (let i = 0; i < d.length; i += 4) if (d[i + 1] > 60) n++; return n; }""")
    assert lit > 1000
    expect(dlg.locator("#replay-cards li")).to_have_count(1)
    no_sideways_scroll(phone)
    ARTIFACTS.mkdir(exist_ok=True)
    phone.screenshot(path=str(ARTIFACTS / "replay-log-player.png"))  # the screen as the phone shows it
    dlg.locator("#replay-close").click()
    # the Table page's verdicts carry the same control
    phone.goto(srv.url + "/")
    expect(phone.locator("#verdicts .replay-btn").first).to_be_visible(timeout=15000)
    assert phone.errors == []


def test_a_pruned_clip_says_so_in_the_player(phone, played):
    hub, srv, _, _ = played
    rec = hub.replay
    entry = next(e["seq"] for e in hub.log_entries(kind="play", limit=0) if e["payload"].get("source") == "camera")
    rec.store._prune(rec.store._clips[(rec.match, entry)], "over the disk kept for clips")
    phone.goto(srv.url + "/log")
    phone.locator(f"#log tbody tr[data-seq='{entry}'] .replay-btn").click()
    expect(phone.locator("dialog#replay")).to_have_attribute("data-state", "pruned", timeout=15000)
    expect(phone.locator("#replay-msg")).to_contain_text("was pruned")
    assert phone.errors == []


def test_a_new_question_reaches_the_open_host_page_with_a_buzz_and_a_mark_is_kept(phone, played):
    hub, srv, _, _ = played
    assert phone.request.post(srv.url + "/api/login", data={"pin": PIN}).ok
    phone.goto(srv.url + "/host")
    expect(phone.locator("#questions li.question")).to_have_count(1, timeout=15000)
    hub.submit({"kind": "start"}, source="host")  # the next round: a starter read unsure
    hub.submit({"kind": "observation", "observation": {
        "type": "discard", "frame": 9999, "timestamp": 999.9, "confidence": 0.4,
        "cards": [{"card": "blue-6", "confidence": 0.4, "box": [200, 250, 310, 420],
                   "candidates": [["blue-6", 0.4], ["blue-9", 0.38], ["green-6", 0.1]]}]}}, source="camera")
    expect(phone.locator("#questions li.question")).to_have_count(2, timeout=15000)
    expect(phone.locator("body")).to_have_attribute("data-buzz", "1", timeout=15000)
    expect(phone.locator("#questions li.question").first).to_contain_text("starter card blue 6")
    # a mark from the replay of a camera entry
    entry = next(e["seq"] for e in hub.log_entries(kind="play", limit=0) if e["payload"].get("source") == "camera")
    phone.select_option("#replay-entry", str(entry))
    phone.click("#replay-form button[type=submit]")
    expect(phone.locator("dialog#replay")).to_have_attribute("data-state", "ok", timeout=15000)
    phone.fill("#mark-text", "that card was slapped down by Cy")
    phone.click("#replay-mark button[type=submit]")
    expect(phone.locator("#replay-marks li")).to_contain_text("slapped down by Cy", timeout=15000)
    assert hub.replay_clip(entry)["marks"][0]["text"] == "that card was slapped down by Cy"
    assert phone.errors == []
