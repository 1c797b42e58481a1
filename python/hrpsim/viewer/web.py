"""The viewer's HTTP and WebSocket server (aiohttp): the page, its data, and the frame stream.

Routes (all on one loopback port):

    GET /                 the page (web/index.html), or a note saying how to build it
    GET /viewer.js[.map]  the bundle built from web/src by esbuild (web/dist/)
    GET /style.css        the page's style sheet
    GET /api/status       mode, epoch, frame count, log, settings, layout (Source.status)
    GET /api/scene        the characters and their body descriptions (Source.scene)
    GET /api/summary      replay only: the run's summary.json
    GET /api/files/NAME   replay only: a plot or summary.txt listed in the results directory
    GET /api/series       replay only: ?character=C&key=K, one logged array (q, dq, u, force...)
    GET /api/cameras      the stored camera frames: {"cameras": [{key, character, sensor, kind,
                          frames, times}], "stored": whether the run stores camera frames
                          (false: cameras off; null: not known, a replay of an older run)}
    POST /api/cameras     live only: {"dir": RESULTS_DIR} shows the frames a run writes there
                          (`hrpsim run --view` sends it; the list above grows as it runs)
    POST /api/control     live only: {"scheduler": IOR or null}, the run's Scheduler that the
                          pages may pause, step and push (control.py; `hrpsim run --view`)
    GET /api/camera/CHARACTER/SENSOR/FRAME.png
                          one stored frame (colour or mono as stored; depth-only cameras: the
                          depth mapped to 8-bit grey, see cameras.py)
    GET /ws               the stream: JSON status messages and binary frame messages; the
                          page's JSON requests ({"op": ...}, control.py) are answered on it
                          in order, one Scheduler call at a time for all pages

Each open page has one sender task. It sends a status message whenever the epoch, the scene
or the settings change, then every frame of the current log from the page's cursor on, in
messages of at most ``CHUNK`` frames (so a long replay arrives in pieces while the page is
already drawing), then waits to be woken. Sources wake the senders from any thread through
``call_soon_threadsafe``; a slow page only makes its own sender lag (aiohttp waits for its
socket to drain), never the source or the CORBA call that fed it.
"""

import asyncio
import concurrent.futures
import json
import logging
import weakref
from pathlib import Path

from aiohttp import WSMsgType, web

from .. import paths

log = logging.getLogger("hrpsim.viewer")

CHUNK = 4096              # frames per binary message
FIRST_CHUNK = 256         # frames in the first message of an epoch
LIVE_BATCH_S = 0.008      # a live sender gathers frames for this long after a wake-up

WEB_DIR = paths.REPO_ROOT / "web"
DIST_DIR = WEB_DIR / "dist"

NOT_BUILT = """<!doctype html><meta charset="utf-8"><title>hrpsim viewer</title>
<body style="font-family:sans-serif;max-width:40em;margin:3em auto">
<h1>hrpsim viewer: the page is not built</h1>
<p>The viewer's server is running (the OnlineViewer CORBA interface works), but its web page
has not been bundled: <code>%s</code> is missing.</p>
<p>Build it with <code>tools/bootstrap.sh</code>, or by hand with Node.js and npm:
<code>npm --prefix web ci &amp;&amp; npm --prefix web run build</code>.</p></body>
"""


class ViewerApp:
    """The aiohttp application over one source (live.LiveSource or replay.ReplaySource)."""

    def __init__(self, source, dist_dir=None):
        self.source = source
        self.dist_dir = Path(dist_dir) if dist_dir else DIST_DIR
        self.loop = None
        self._wake_pending = False
        self.wakes = weakref.WeakSet()
        # the pages' run-control requests: one thread, so they reach the Scheduler in order
        self.control_pool = concurrent.futures.ThreadPoolExecutor(1, "viewer-control")
        self.app = web.Application()
        self.app.add_routes([
            web.get("/", self.index),
            web.get("/viewer.js", self.bundle),
            web.get("/viewer.js.map", self.bundle),
            web.get("/style.css", self.style),
            web.get("/api/status", self.status),
            web.get("/api/scene", self.scene),
            web.get("/api/summary", self.summary),
            web.get("/api/files/{name}", self.file),
            web.get("/api/series", self.series),
            web.get("/api/cameras", self.cameras),
            web.post("/api/cameras", self.set_camera_dir),
            web.post("/api/control", self.set_control),
            web.get("/api/camera/{character}/{sensor}/{frame:[0-9]+}.png", self.camera_frame),
            web.get("/ws", self.websocket),
        ])
        self.app.on_startup.append(self._startup)
        self.app.on_shutdown.append(self._shutdown)
        self.sockets = weakref.WeakSet()

    async def _startup(self, app):
        self.loop = asyncio.get_running_loop()
        self.source.add_listener(self._changed)

    async def _shutdown(self, app):
        self.source.remove_listener(self._changed)
        for ws in list(self.sockets):
            await ws.close(code=1001, message=b"server shutdown")
        self.control_pool.shutdown(wait=False)

    # ---- wake-ups from the source (any thread) ----------------------------------------------

    def _changed(self, event):
        # one wake-up in flight at a time: a source updated 1000 times a second must not
        # write 1000 times a second to the loop's pipe (and wake its thread each time)
        loop = self.loop
        if self._wake_pending or loop is None or loop.is_closed():
            return
        self._wake_pending = True
        try:
            loop.call_soon_threadsafe(self._wake_all)
        except RuntimeError:  # the loop closed meanwhile
            self._wake_pending = False

    def _wake_all(self):
        self._wake_pending = False
        for ev in list(self.wakes):
            ev.set()

    # ---- static files -----------------------------------------------------------------------

    async def index(self, request):
        if not (self.dist_dir / "viewer.js").exists():
            return web.Response(text=NOT_BUILT % (self.dist_dir / "viewer.js"),
                                content_type="text/html")
        return web.FileResponse(WEB_DIR / "index.html",
                                headers={"Cache-Control": "no-cache"})

    async def bundle(self, request):
        path = self.dist_dir / request.path.lstrip("/")
        if not path.exists():
            raise web.HTTPNotFound(text="%s is not built (tools/bootstrap.sh)" % path.name)
        return web.FileResponse(path, headers={"Cache-Control": "no-cache"})

    async def style(self, request):
        return web.FileResponse(WEB_DIR / "src" / "style.css",
                                headers={"Cache-Control": "no-cache"})

    # ---- data -------------------------------------------------------------------------------

    async def status(self, request):
        return web.json_response(self.source.status())

    async def scene(self, request):
        scene = await asyncio.get_running_loop().run_in_executor(None, self.source.scene)
        return web.json_response(scene, dumps=json.dumps)

    async def summary(self, request):
        getter = getattr(self.source, "summary", None)
        if getter is None:
            raise web.HTTPNotFound(text="no summary: this viewer is live")
        return web.json_response(getter())

    async def file(self, request):
        getter = getattr(self.source, "file_path", None)
        path = getter(request.match_info["name"]) if getter else None
        if path is None:
            raise web.HTTPNotFound(text="no such file")
        return web.FileResponse(path)

    async def series(self, request):
        getter = getattr(self.source, "series", None)
        if getter is None:
            raise web.HTTPNotFound(text="no series: this viewer is live")
        loop = asyncio.get_running_loop()
        try:
            data = await loop.run_in_executor(None, getter, request.query.get("character", ""),
                                              request.query.get("key", ""))
        except KeyError as exc:
            raise web.HTTPNotFound(text=str(exc))
        return web.json_response(data)

    async def cameras(self, request):
        index = getattr(self.source, "camera_index", None)
        stored = self._cameras_stored(index)
        if index is None:
            return web.json_response({"cameras": [], "stored": stored})
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, index.refresh)
        return web.json_response({"cameras": index.cameras(), "stored": stored})

    def _cameras_stored(self, index):
        # whether the run shown stores camera frames: live, once a run has said where (POST
        # /api/cameras, which `hrpsim run --view` sends only with cameras on); a replay, as its
        # summary says (None for a run from before the summary said it)
        if hasattr(self.source, "set_camera_dir"):
            return index is not None
        getter = getattr(self.source, "summary", None)
        stored = getter().get("cameras") if getter else None
        return None if stored is None else bool(stored)

    async def set_camera_dir(self, request):
        setter = getattr(self.source, "set_camera_dir", None)
        if setter is None:
            raise web.HTTPMethodNotAllowed("POST", ["GET"], text="a replay shows its own frames")
        try:
            body = await request.json()
            await asyncio.get_running_loop().run_in_executor(None, setter, body["dir"])
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("POST /api/cameras: %s", exc)
            raise web.HTTPBadRequest(text="POST /api/cameras takes {\"dir\": RESULTS_DIR}: %s"
                                     % exc)
        return web.json_response({"ok": True})

    async def set_control(self, request):
        setter = getattr(self.source, "set_control", None)
        if setter is None:
            raise web.HTTPMethodNotAllowed("POST", ["GET"], text="a replay has no run to control")
        try:
            body = await request.json()
            await asyncio.get_running_loop().run_in_executor(self.control_pool, setter,
                                                             body["scheduler"])
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("POST /api/control: %s", exc)
            raise web.HTTPBadRequest(text="POST /api/control takes {\"scheduler\": IOR or "
                                     "null}: %s" % exc)
        return web.json_response({"ok": True})

    async def _control(self, ws, text):
        """Answer one JSON request of a page (control.py) on its socket."""
        control = getattr(self.source, "control", None)
        try:
            msg = json.loads(text)
        except ValueError:
            msg = None
        if control is None or not isinstance(msg, dict):
            answer = {"type": "control", "op": None, "ok": False,
                      "error": "not a request this viewer takes"}
        else:
            answer = await asyncio.get_running_loop().run_in_executor(
                self.control_pool, control.request, msg)
            answer["id"] = msg.get("id")
        await ws.send_str(json.dumps(answer))

    async def camera_frame(self, request):
        index = getattr(self.source, "camera_index", None)
        m = request.match_info
        if index is None:
            raise web.HTTPNotFound(text="no camera frames here")
        loop = asyncio.get_running_loop()
        try:
            data = await loop.run_in_executor(None, index.image, m["character"], m["sensor"],
                                              int(m["frame"]))
        except (OSError, ValueError) as exc:
            log.warning("camera frame %s/%s/%s: %s", m["character"], m["sensor"], m["frame"], exc)
            raise web.HTTPNotFound(text="cannot read that frame: %s" % exc)
        if data is None:
            raise web.HTTPNotFound(text="no such camera frame")
        # a stored frame never changes: the page may keep it
        headers = {"Cache-Control": "max-age=3600"}
        if isinstance(data, Path):
            return web.FileResponse(data, headers=headers)
        return web.Response(body=data, content_type="image/png", headers=headers)

    # ---- the stream -------------------------------------------------------------------------

    async def websocket(self, request):
        # no permessage-deflate: frames are float arrays (deflate gains little) and
        # compressing megabytes of a replay would cost the server seconds
        ws = web.WebSocketResponse(heartbeat=20.0, max_msg_size=1 << 20, compress=False)
        await ws.prepare(request)
        self.sockets.add(ws)
        wake = asyncio.Event()
        self.wakes.add(wake)
        sender = asyncio.ensure_future(self._send_loop(ws, wake))
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT and msg.data == "ping":
                    await ws.send_str(json.dumps({"type": "pong"}))
                elif msg.type == WSMsgType.TEXT:
                    await self._control(ws, msg.data)
                elif msg.type == WSMsgType.ERROR:
                    break
        finally:
            sender.cancel()
            try:
                await sender
            except (asyncio.CancelledError, ConnectionResetError):
                pass
            self.wakes.discard(wake)
        return ws

    async def _send_loop(self, ws, wake):
        src = self.source
        sent_status = None
        epoch, cursor = None, 0
        transient_sent = None
        live = src.mode == "live"
        try:
            while not ws.closed:
                wake.clear()
                status = src.status()
                key = (status["epoch"], status["sceneVersion"], status.get("lineWidth"),
                       status.get("lineScale"), status.get("log"), status.get("control"))
                if key != sent_status:
                    await ws.send_str(json.dumps(dict(status, type="status")))
                    sent_status = key
                if status["epoch"] != epoch:
                    epoch, cursor = status["epoch"], 0
                    transient_sent = None
                while not ws.closed:
                    # a small first piece, so the page can draw while the rest travels
                    size = FIRST_CHUNK if cursor == 0 else CHUNK
                    msg = src.frames(epoch, cursor, cursor + size)
                    if msg is None:
                        break
                    await ws.send_bytes(msg)
                    cursor += int.from_bytes(msg[12:16], "little")
                    await asyncio.sleep(0)  # let other pages and requests in between
                if live:
                    transient = src.transient()
                    if transient is not None and transient != transient_sent:
                        await ws.send_bytes(transient)
                    transient_sent = transient
                if wake.is_set():
                    continue
                await wake.wait()
                if live:
                    await asyncio.sleep(LIVE_BATCH_S)
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        except Exception:  # noqa: BLE001 - a bug must show, and must close this page only
            log.exception("the stream to a page failed; closing it")
            await ws.close(code=1011, message=b"server error")


async def start_site(viewer_app, host="127.0.0.1", port=0):
    """Start serving ``viewer_app`` on host:port (0: a free port); return (runner, url)."""
    runner = web.AppRunner(viewer_app.app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    sock = site._server.sockets[0]  # noqa: SLF001 - the port chosen for port 0
    actual = sock.getsockname()[1]
    return runner, "http://%s:%d/" % (host, actual)
