"""Drive Debian's headless Chromium over the DevTools protocol: open the viewer, evaluate
JavaScript in it, take screenshots. Used by the browser tests, the viewer benchmark and the
README screenshot.

    with Browser() as b:
        page = b.new_page()
        page.navigate("http://127.0.0.1:8765/")
        page.wait_for("window.hrpsim && window.hrpsim.ready")
        png = page.screenshot()

Chromium runs with a fresh profile directory (its output goes to a log beside it), on a
loopback DevTools port it picks itself (read from DevToolsActivePort), with networking extras
off; close() removes the profile, the log and Chromium's own singleton directory, so nothing is
left in the temporary directory (a Chromium that does not start leaves its log, which the error
names). WebGL uses SwiftShader (software) since there is no GPU. JavaScript exceptions and
console errors of a page are collected in
``Page.errors``. The WebSocket client is aiohttp's, on a private event loop.
"""

import asyncio
import base64
import contextlib
import itertools
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--disable-extensions", "--mute-audio",
    "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
    "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
)


class BrowserError(RuntimeError):
    """Chromium could not be started or a DevTools call failed."""


def chromium_path():
    """The Chromium executable: ``$HRPSIM_CHROMIUM``, else chromium on the PATH."""
    exe = os.environ.get("HRPSIM_CHROMIUM") or shutil.which("chromium") or \
        shutil.which("chromium-browser")
    if not exe:
        raise BrowserError("Chromium not found: install Debian's chromium (apt-get install "
                           "chromium) or set HRPSIM_CHROMIUM")
    return exe


class Browser:
    """One headless Chromium process with its own profile; close() ends it."""

    def __init__(self, width=1280, height=800, timeout=30.0):
        self.loop = asyncio.new_event_loop()
        self.root = Path(tempfile.mkdtemp(prefix="hrpsim-chromium-"))
        self.profile = self.root / "profile"
        argv = [chromium_path(), *CHROMIUM_FLAGS, "--user-data-dir=%s" % self.profile,
                "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1",
                "--window-size=%d,%d" % (width, height), "about:blank"]
        self.log_path = self.root.parent / (self.root.name + ".log")
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=self._log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        self.pages = []
        try:
            self.port = self._wait_port(timeout)
        except BaseException:
            self.close(keep_log=True)
            raise

    def _wait_port(self, timeout):
        path = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise BrowserError("chromium exited with status %s; its log: %s"
                                   % (self.proc.returncode, self.log_path))
            try:
                text = path.read_text().split()
                if text:
                    return int(text[0])
            except (OSError, ValueError):
                pass
            time.sleep(0.05)
        raise BrowserError("chromium did not open its DevTools port within %g s" % timeout)

    def _http(self, method, path):
        import urllib.request
        req = urllib.request.Request("http://127.0.0.1:%d%s" % (self.port, path),
                                     method=method)
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())

    def new_page(self, url="about:blank"):
        """A new tab, connected; returns a Page."""
        target = self._http("PUT", "/json/new?" + url)
        page = Page(self, target["webSocketDebuggerUrl"], target["id"])
        self.pages.append(page)
        return page

    def close(self, keep_log=False):
        """Close every page and end Chromium (SIGTERM, then SIGKILL), remove the profile and
        the log (``keep_log``: the log stays, for an error that names it)."""
        for p in list(self.pages):
            p.close()
        # Chromium's own directory in the temporary directory (its singleton socket, named by
        # a link in the profile; a path under the profile could exceed a socket's 108 bytes)
        singleton = None
        with contextlib.suppress(OSError):
            singleton = Path(os.readlink(self.profile / "SingletonSocket")).parent
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()
        if not self.loop.is_closed():
            self.loop.close()
        if not keep_log:
            with contextlib.suppress(OSError):
                self.log_path.unlink()
        if singleton is not None and singleton.name.startswith("org.chromium.Chromium."):
            shutil.rmtree(singleton, ignore_errors=True)
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Page:
    """One tab, driven over its DevTools WebSocket."""

    def __init__(self, browser, ws_url, target_id):
        import aiohttp
        self.browser = browser
        self.loop = browser.loop
        self.target_id = target_id
        self.errors = []          # JS exceptions and console errors, as text
        self.console = []         # every console message, as text
        self._ids = itertools.count(1)
        self._pending = {}
        self._session = None
        self._ws = None
        self._reader = None

        async def connect():
            self._session = aiohttp.ClientSession()
            self._ws = await self._session.ws_connect(ws_url, max_msg_size=0)
            self._reader = asyncio.ensure_future(self._read())
        self.loop.run_until_complete(connect())
        self.call("Runtime.enable")
        self.call("Page.enable")

    async def _read(self):
        async for msg in self._ws:
            data = json.loads(msg.data)
            if "id" in data:
                fut = self._pending.pop(data["id"], None)
                if fut is not None and not fut.done():
                    fut.set_result(data)
            elif data.get("method") == "Runtime.exceptionThrown":
                d = data["params"]["exceptionDetails"]
                text = d.get("exception", {}).get("description") or d.get("text")
                self.errors.append(text)
            elif data.get("method") == "Runtime.consoleAPICalled":
                p = data["params"]
                text = " ".join(str(a.get("value", a.get("description", "")))
                                for a in p.get("args", []))
                self.console.append("%s: %s" % (p["type"], text))
                if p["type"] == "error":
                    self.errors.append(text)

    def call(self, method, timeout=30.0, **params):
        """Send one DevTools command and return its result (BrowserError on an error)."""
        async def go():
            i = next(self._ids)
            fut = self.loop.create_future()
            self._pending[i] = fut
            await self._ws.send_str(json.dumps({"id": i, "method": method, "params": params}))
            return await asyncio.wait_for(fut, timeout)
        data = self.loop.run_until_complete(go())
        if "error" in data:
            raise BrowserError("%s: %s" % (method, data["error"].get("message")))
        return data.get("result", {})

    def navigate(self, url, timeout=30.0):
        """Open ``url`` and wait until its load event."""
        self.call("Page.navigate", url=url)
        self.wait_for("document.readyState === 'complete'", timeout=timeout)

    def evaluate(self, expression, await_promise=False, timeout=30.0):
        """The value of a JavaScript expression (JSON-serialisable values only)."""
        r = self.call("Runtime.evaluate", timeout=timeout, expression=expression,
                      returnByValue=True, awaitPromise=await_promise)
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            raise BrowserError("evaluate %r: %s" % (expression, d.get("exception", {}).get(
                "description") or d.get("text")))
        return r.get("result", {}).get("value")

    def wait_for(self, expression, timeout=20.0, interval=0.05):
        """Poll until ``expression`` is truthy; returns its value. BrowserError on timeout."""
        deadline = time.monotonic() + timeout
        value = None
        while True:
            try:
                value = self.evaluate(expression)
            except BrowserError:
                value = None
            if value:
                return value
            if time.monotonic() > deadline:
                raise BrowserError("timed out after %g s waiting for %s (page errors: %s)"
                                   % (timeout, expression, self.errors or "none"))
            self.loop.run_until_complete(asyncio.sleep(interval))

    def bring_to_front(self):
        """Make this the visible tab (hidden tabs get no animation frames)."""
        self.call("Page.bringToFront")

    def set_viewport(self, width, height):
        """Lay the page out at width x height CSS pixels (device scale 1) from now on."""
        self.call("Emulation.setDeviceMetricsOverride", width=int(width), height=int(height),
                  deviceScaleFactor=1, mobile=False)

    def screenshot(self, path=None):
        """A PNG of the page as shown now (bytes); also written to ``path`` if given."""
        data = base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])
        if path:
            Path(path).write_bytes(data)
        return data

    def close(self):
        if self._ws is None:
            return

        async def shut():
            await self._ws.close()
            await self._session.close()
            if self._reader:
                self._reader.cancel()
        try:
            self.browser._http("PUT", "/json/close/" + self.target_id)
        except Exception:  # noqa: BLE001 - the browser may be gone already
            pass
        if not self.loop.is_closed():
            self.loop.run_until_complete(shut())
        self._ws = None
        if self in self.browser.pages:
            self.browser.pages.remove(self)


def png_pixels(data):
    """(height, width, 4) uint8 RGBA array of PNG bytes (read with matplotlib)."""
    import io

    import matplotlib.image
    import numpy as np
    img = matplotlib.image.imread(io.BytesIO(data), format="png")
    if img.dtype != np.uint8:
        img = np.round(img * 255).astype(np.uint8)
    if img.shape[2] == 3:
        img = np.concatenate([img, np.full(img.shape[:2] + (1,), 255, np.uint8)], axis=2)
    return img
