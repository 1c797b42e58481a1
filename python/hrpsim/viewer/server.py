"""The OnlineViewer server process: OpenHRP's OnlineViewer over CORBA, the page over HTTP.

    python -m hrpsim.viewer -ORBInitRef NameService=corbaloc:iiop:127.0.0.1:PORT/NameService
        [--name OnlineViewer] [--host 127.0.0.1] [--port 0] [--url-file FILE]

It binds an ``OpenHRP::OnlineViewer`` as ``--name`` in the root naming context, serves the
page on ``--host:--port`` (0: a free port), prints ``viewer: http://...`` on stdout and writes
the URL to ``--url-file`` (how `hrpsim up --viewer` learns it). omniORB serves the CORBA
calls on its own threads; the page's HTTP and WebSocket traffic runs on an asyncio loop in the
main thread. SIGTERM or SIGINT unbinds the name (if it still names this viewer) and exits 0.

The operations and what they mean here (OpenHRP 3.1's IDL text, GrxUI's and Choreonoid's
viewers):

- ``load(name, url)``: read the model through the naming service's ModelLoader (textures
  included) and show it as character ``name``; loading the same name and URL again keeps it,
  another URL replaces it. A model that does not load raises OnlineViewerException with the
  ModelLoader's description (file, line, problem); so does a URL that is not a path or
  ``file://``, or no ModelLoader.
- ``update(state)``: show the WorldState and append it to the current log (the page's
  timeline); ``drawScene(state)``: show it without logging it.
- ``clearLog()``: empty the current log; ``clearData()``: forget every model and log.
- ``setLineWidth(w)`` / ``setLineScale(s)``: thickness and length scale of the contact
  arrows (and link frames); BAD_PARAM for a non-positive width or negative scale.
- ``getPosture(robotId)``: (true, joint values in jointId order, recovered from the link
  poses last shown) for a loaded character, (false, []) otherwise.
- ``setLogName(name)``: log into the log called ``name`` from now on (made if new).
"""

import argparse
import asyncio
import logging
import os
import signal
import sys
from pathlib import Path

from .. import _orb
from .live import LiveSource, ViewerError
from .scene import body_description
from .web import ViewerApp, start_site

log = logging.getLogger("hrpsim.viewer")

SWITCH_INTERVAL_S = 0.0005


def model_loader_description(naming):
    """A loader for LiveSource: ``url`` -> body description through the ModelLoader bound
    in the naming service at ``naming`` (textures read). Raises ViewerError."""
    def load(url):
        import hrpsim
        from hrpsim import OpenHRP
        CORBA, _ = _orb.corba()
        if "://" in url and not url.startswith("file://"):
            raise ViewerError("load: only file:// URLs and paths can be loaded, got %r" % url)
        try:
            loader = hrpsim.connect(naming).model_loader()
        except (hrpsim.HrpsimError, CORBA.SystemException) as exc:
            raise ViewerError("load: no ModelLoader to read %s (%s)" % (url, exc)) from exc
        return describe_url(loader, url)
    return load


def describe_url(loader, url):
    """Body description of ``url`` (a path or file:// URL) read through ``loader`` (an
    OpenHRP.ModelLoader) with texture images. Raises ViewerError naming the problem."""
    import hrpsim
    from hrpsim import OpenHRP
    CORBA, _ = _orb.corba()
    full = hrpsim.file_url(url)
    option = OpenHRP.ModelLoader.ModelLoadOption(True, [], OpenHRP.ModelLoader.AABB_DEPTH)
    try:
        body = loader.getBodyInfoEx(full, option)
        return body_description(body, url=full)
    except OpenHRP.ModelLoader.ModelLoaderException as exc:
        raise ViewerError("load %s: %s" % (url, exc.description)) from exc
    except CORBA.SystemException as exc:
        raise ViewerError("load %s: the ModelLoader failed (%s)"
                          % (url, _orb.describe_exception(exc))) from exc


def make_servant(source):
    """An OpenHRP::OnlineViewer servant over ``source`` (a LiveSource)."""
    from hrpsim import OpenHRP, OpenHRP__POA
    CORBA, _ = _orb.corba()

    def refuse(op, exc):
        log.warning("%s: %s", op, exc)
        raise CORBA.BAD_PARAM(0, CORBA.COMPLETED_NO)

    class OnlineViewerServant(OpenHRP__POA.OnlineViewer):
        def update(self, state):
            try:
                source.update(state)
            except ViewerError as exc:
                refuse("update", exc)

        def load(self, name, url):
            try:
                source.load(name, url)
            except ViewerError as exc:
                log.warning("load(%r, %r): %s", name, url, exc)
                raise OpenHRP.OnlineViewer.OnlineViewerException(str(exc))

        def clearLog(self):
            source.clear_log()

        def clearData(self):
            source.clear_data()

        def drawScene(self, state):
            try:
                source.draw(state)
            except ViewerError as exc:
                refuse("drawScene", exc)

        def setLineWidth(self, width):
            try:
                source.set_line_width(width)
            except ViewerError as exc:
                refuse("setLineWidth", exc)

        def setLineScale(self, scale):
            try:
                source.set_line_scale(scale)
            except ViewerError as exc:
                refuse("setLineScale", exc)

        def getPosture(self, robotId):
            found, posture = source.posture(robotId)
            return bool(found), posture

        def setLogName(self, name):
            try:
                source.set_log_name(name)
            except ViewerError as exc:
                refuse("setLogName", exc)

    return OnlineViewerServant()


def _split_orb_args(argv):
    """(ORB options as pairs, the rest) of an argument list."""
    orb, rest = [], []
    i = 0
    while i < len(argv):
        if argv[i].startswith("-ORB") and i + 1 < len(argv):
            orb += argv[i:i + 2]
            i += 2
        else:
            rest.append(argv[i])
            i += 1
    return orb, rest


def build_parser():
    p = argparse.ArgumentParser(
        prog="python -m hrpsim.viewer",
        description="hrpsim's OnlineViewer: binds OpenHRP::OnlineViewer in the naming service "
                    "and draws what clients push in a web page.",
        epilog="Example: python -m hrpsim.viewer -ORBInitRef "
               "NameService=corbaloc:iiop:127.0.0.1:2809/NameService --port 8765")
    p.add_argument("--name", default="OnlineViewer",
                   help="name to bind in the root naming context (default OnlineViewer)")
    p.add_argument("--host", default="127.0.0.1", help="HTTP address (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=0, help="HTTP port (default 0: a free one)")
    p.add_argument("--url-file", metavar="FILE", help="write the page's URL to FILE")
    p.add_argument("--naming", metavar="CORBALOC",
                   help="naming service (default: -ORBInitRef NameService=..., else "
                        "$HRPSIM_NAMING or hrpsim up's state)")
    return p


def main(argv=None):
    """Run the viewer server until SIGTERM/SIGINT; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    orb_args, rest = _split_orb_args(argv)
    args = build_parser().parse_args(rest)
    logging.basicConfig(level=logging.INFO, format="hrpsim-viewer: %(message)s",
                        stream=sys.stderr)
    # a CORBA call waiting for the GIL while another thread works (the compactor, a page's
    # sender) waits one switch interval: 0.5 ms instead of Python's 5 ms keeps update() short
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    import hrpsim
    naming = args.naming or _orb.naming_from_orb_args(orb_args)
    if naming is None:
        naming = hrpsim.naming_from_environment()
    source = LiveSource(model_loader_description(naming))
    served = _orb.ServedObject(lambda: make_servant(source), args.name, orb_args, naming)

    # the page first, so that once the name is bound the URL is known too
    app = ViewerApp(source)
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    runner, url = loop.run_until_complete(start_site(app, args.host, args.port))
    print("viewer: %s" % url, flush=True)
    if args.url_file:
        tmp = Path(args.url_file).with_suffix(".tmp")
        tmp.write_text(url + "\n")
        os.replace(tmp, args.url_file)
    served.bind()
    log.info("bound %s in %s", args.name, naming)

    try:
        loop.run_until_complete(stop.wait())
    finally:
        # unbind first (only if the name still names us), then stop serving
        served.unbind()
        loop.run_until_complete(runner.cleanup())
        loop.close()
        source.close()
        served.finish()
    log.info("stopped")
    # leave without the interpreter's finalisation (see hrpsim._orb.end_server_process)
    _orb.end_server_process(None, 0)


if __name__ == "__main__":
    sys.exit(main())
