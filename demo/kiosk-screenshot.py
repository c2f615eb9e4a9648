#!/usr/bin/python3
"""Keeps the kiosk page open in headless Chromium and saves a screenshot when told to.

Usage: kiosk-screenshot.py PAGE_URL OUTPUT.png < commands

The page is opened at once, so that it follows the events live ("ready" is printed once it does); each line on stdin ("shot") saves what it
shows at that moment to OUTPUT.png; the end of stdin closes the browser. Chromium is driven through the
DevTools protocol over --remote-debugging-pipe (its fd 3 takes commands, fd 4 gives answers, NUL-separated).
SIGTERM (how run-demo.sh stops it) closes the browser too: Chromium and its helpers go, and so does its profile.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import base64
import fcntl


class Browser:
    def __init__(self, width=1280, height=800):
        executable = shutil.which("chromium") or "/usr/bin/chromium"
        self.profile = tempfile.mkdtemp(prefix="kiosk-shot-")
        to_browser, self.commands = os.pipe()
        self.answers, from_browser = os.pipe()
        # Out of the way of 3 and 4 first, so that neither dup2 below overwrites the other end.
        high_to, high_from = fcntl.fcntl(to_browser, fcntl.F_DUPFD, 100), fcntl.fcntl(from_browser, fcntl.F_DUPFD, 100)
        os.close(to_browser)
        os.close(from_browser)

        def plumb():
            os.dup2(high_to, 3)
            os.dup2(high_from, 4)

        self.process = subprocess.Popen(
            [executable, "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-extensions", "--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio",
             f"--user-data-dir={self.profile}", f"--window-size={width},{height}", "about:blank"],
            pass_fds=(3, 4), preexec_fn=plumb, start_new_session=True,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            # Its own temporary files (org.chromium.Chromium.*) go in the profile too, and go with it.
            env=dict(os.environ, TMPDIR=self.profile))
        os.close(high_to)
        os.close(high_from)
        self.next_id = 0
        self.pending = b""

    def send(self, method, params=None, session=None, fail=True):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.commands, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self.pending:
                chunk = os.read(self.answers, 65536)
                if not chunk:
                    raise SystemExit("kiosk-screenshot: chromium exited")
                self.pending += chunk
            raw, self.pending = self.pending.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    if not fail:
                        return None
                    raise SystemExit(f"kiosk-screenshot: {method}: {answer['error']}")
                return answer.get("result", {})

    def close(self):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        # The browser's helpers (zygote, renderers) are in its session: all of them go before the profile does.
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


def stop(signum, frame):
    raise SystemExit(0)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    url, output = sys.argv[1], sys.argv[2]
    signal.signal(signal.SIGTERM, stop)
    browser = Browser()
    try:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        browser.send("Page.navigate", {"url": url}, session)
        # Ready once the page follows the station's events (asked again while the page is still loading).
        online = {"returnByValue": True, "expression": "document.body ? document.body.dataset.station || '' : ''"}
        deadline = time.monotonic() + 30
        while (browser.send("Runtime.evaluate", online, session, fail=False) or {}).get("result", {}).get("value") != "online":
            if time.monotonic() > deadline:
                raise SystemExit("kiosk-screenshot: the page did not come online within 30 s")
            time.sleep(0.05)
        print("ready", flush=True)
        for line in sys.stdin:
            if line.strip() == "shot":
                data = browser.send("Page.captureScreenshot", {"format": "png"}, session)["data"]
                os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
                with open(output, "wb") as file:
                    file.write(base64.b64decode(data))
                print(f"saved {output}", flush=True)
    finally:
        browser.close()


if __name__ == "__main__":
    main()
