"""Make the README's pictures from a running demo: the table page on a phone-sized
viewport and one annotated camera frame.

    python docs/screenshots.py            # starts `uno-table demo`, waits, shoots, stops it
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
PORT = 8123


def main() -> int:
    detector = sys.argv[1] if len(sys.argv) > 1 else "onnx"
    demo = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "demo", "--port", str(PORT), "--seed", "2", "--detector", detector],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        base = f"http://127.0.0.1:{PORT}"
        for _ in range(120):
            try:
                urllib.request.urlopen(base + "/healthz", timeout=2)
                break
            except OSError:
                time.sleep(1)
        time.sleep(45)  # let a few plays happen
        (HERE / "camera-frame.jpg").write_bytes(urllib.request.urlopen(base + "/camera.jpg", timeout=10).read())
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path="/usr/bin/chromium",
                args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
            )
            page = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2)
            page.goto(base + "/")
            page.wait_for_timeout(3000)
            page.screenshot(path=str(HERE / "dashboard.png"), full_page=False)
            browser.close()
        print("wrote", HERE / "dashboard.png", HERE / "camera-frame.jpg")
    finally:
        demo.send_signal(signal.SIGINT)
        try:
            demo.wait(20)
        except subprocess.TimeoutExpired:
            demo.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
