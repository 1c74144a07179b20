"""A minimal Chrome DevTools Protocol client over ``--remote-debugging-pipe``.

No extra package: Chromium reads commands from file descriptor 3 and writes replies
and events to descriptor 4, one JSON message each, NUL-terminated. Enough for the
report's browser tests and ``bench/bench_html.py``: open a page at a window size,
evaluate script, send real mouse and keyboard input, take screenshots.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
)


def find_chromium() -> str | None:
    for candidate in ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(candidate)
        if found:
            return found
    return None


def chromium() -> str:
    """The Chromium to drive, or the test fails saying how to install one."""
    import pytest

    found = find_chromium()
    if found is None:
        pytest.fail("headless Chromium is needed (Debian/Ubuntu: apt-get install -y chromium)", pytrace=False)
    return found


class CDPError(RuntimeError):
    pass


class Browser:
    """One headless Chromium with one page; use as a context manager."""

    def __init__(self, chromium: str, *, width: int = 1400, height: int = 900, home: Path | None = None) -> None:
        self._profile = tempfile.mkdtemp(prefix="editpred-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def wire() -> None:  # in the child: the pipe ends become descriptors 3 and 4
            a = fcntl.fcntl(to_child_r, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(from_child_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        env = {**os.environ, "HOME": str(home or self._profile)}
        self._log = open(os.path.join(self._profile, "chromium.log"), "wb")  # noqa: SIM115
        self.process = subprocess.Popen(
            [
                chromium,
                *CHROMIUM_FLAGS,
                f"--user-data-dir={self._profile}",
                f"--window-size={width},{height}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self._log,
            close_fds=False,  # Python's own descriptors are not inheritable (PEP 446); 3 and 4 are
            preexec_fn=wire,  # noqa: PLW1509
            env=env,
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self._next = 0
        self._replies: dict[int, queue.Queue[dict[str, Any]]] = {}
        self._lock = threading.Lock()
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime"):
            self.call(f"{domain}.enable", session=True)
        self.resize(width, height)

    # -------------------------------------------------------------- protocol

    def _read(self) -> None:
        buffer = b""
        while True:
            try:
                data = os.read(self._from_child, 1 << 20)
            except OSError:
                return
            if not data:
                return
            buffer += data
            while b"\0" in buffer:
                raw, buffer = buffer.split(b"\0", 1)
                message = json.loads(raw)
                if "id" in message:
                    with self._lock:
                        box = self._replies.get(message["id"])
                    if box is not None:
                        box.put(message)
                else:
                    self.events.put(message)

    def call(
        self, method: str, params: dict[str, Any] | None = None, *, session: bool = False, timeout: float = 60
    ) -> Any:
        with self._lock:
            self._next += 1
            ident = self._next
            box: queue.Queue[dict[str, Any]] = queue.Queue()
            self._replies[ident] = box
        message: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        try:
            reply = box.get(timeout=timeout)
        except queue.Empty:
            raise CDPError(f"{method}: no reply in {timeout} s") from None
        finally:
            with self._lock:
                self._replies.pop(ident, None)
        if "error" in reply:
            raise CDPError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def wait_event(self, method: str, timeout: float = 60) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CDPError(f"no {method} event in {timeout} s")
            try:
                event = self.events.get(timeout=left)
            except queue.Empty:
                continue
            if event.get("method") == method:
                return event

    # -------------------------------------------------------------- page

    def resize(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            session=True,
        )

    def open(
        self, url: str, ready: str = "document.documentElement.dataset.ready === '1'", timeout: float = 60
    ) -> None:
        # A URL that differs only in its fragment would not load the page again.
        for target in ("about:blank", url):
            while not self.events.empty():
                self.events.get_nowait()
            self.call("Page.navigate", {"url": target}, session=True)
            self.wait_event("Page.loadEventFired", timeout)
        self.wait_for(ready, timeout)

    def js(self, expression: str, *, timeout: float = 60) -> Any:
        """The value of ``expression`` (awaited when it is a promise)."""
        result = self.call(
            "Runtime.evaluate",
            {"expression": expression, "awaitPromise": True, "returnByValue": True},
            session=True,
            timeout=timeout,
        )
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise CDPError(f"script failed: {text}\n{expression[:500]}")
        return result["result"].get("value")

    def wait_for(self, condition: str, timeout: float = 30) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = self.js(f"(() => {{ try {{ return ({condition}); }} catch (e) {{ return false; }} }})()")
            if value:
                return value
            if time.monotonic() > deadline:
                raise CDPError(f"timed out waiting for: {condition}")
            time.sleep(0.02)

    def center(self, selector: str) -> tuple[float, float]:
        box = self.js(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return null;"
            " e.scrollIntoView({block: 'nearest'}); const r = e.getBoundingClientRect();"
            " return [r.left + r.width / 2, r.top + r.height / 2]; })()"
        )
        if box is None:
            raise CDPError(f"no element matches {selector}")
        return box[0], box[1]

    def click(self, selector: str) -> None:
        """A real mouse click (pressed and released) in the middle of the element."""
        x, y = self.center(selector)
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.call(
                "Input.dispatchMouseEvent",
                {"type": kind, "x": x, "y": y, "button": "left" if kind != "mouseMoved" else "none", "clickCount": 1},
                session=True,
            )

    _KEYS = {
        "ArrowDown": (40, ""),
        "ArrowUp": (38, ""),
        "Enter": (13, "\r"),
        "Escape": (27, ""),
        "Tab": (9, ""),
        "Home": (36, ""),
        "End": (35, ""),
        "Backspace": (8, ""),
    }

    def key(self, key: str) -> None:
        """A real key press: keyDown (with its character) and keyUp."""
        code, text = self._KEYS.get(key, (ord(key.upper()) if len(key) == 1 else 0, key if len(key) == 1 else ""))
        down: dict[str, Any] = {
            "type": "keyDown",
            "key": key,
            "windowsVirtualKeyCode": code,
            "nativeVirtualKeyCode": code,
        }
        if text:
            down["text"] = text
        self.call("Input.dispatchKeyEvent", down, session=True)
        self.call("Input.dispatchKeyEvent", {"type": "keyUp", "key": key, "windowsVirtualKeyCode": code}, session=True)

    def type(self, text: str) -> None:
        for char in text:
            self.key(char)

    def screenshot(self, path: Path, full: bool = False) -> bytes:
        params: dict[str, Any] = {"format": "png"}
        if full:
            params["captureBeyondViewport"] = True
        data = base64.b64decode(self.call("Page.captureScreenshot", params, session=True)["data"])
        path.write_bytes(data)
        return data

    def close(self) -> None:
        try:
            self.call("Browser.close", timeout=10)
        except (CDPError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        for fd in (self._to_child, self._from_child):
            try:
                os.close(fd)
            except OSError:
                pass
        self._log.close()
        shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
