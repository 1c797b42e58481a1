"""The `hrpsim` command: start, stop and inspect the servers, and run the demo.

    hrpsim up      start omniNames and the servers found in the bin dir
    hrpsim down    stop exactly what `up` started
    hrpsim status  show what `up` started and whether it is alive and bound
    hrpsim env     print shell exports for the running servers: eval "$(hrpsim env)"
    hrpsim demo    load a model through the ModelLoader and summarise it
    hrpsim run     run a project through the Scheduler and write a results directory
    hrpsim view    replay a results directory in the web viewer

Exit codes: 0 success; 1 failure, or for `status` anything not running/answering (also when
nothing was started at all); 2 usage errors (argparse).
"""

import argparse
import json
import math
import shlex
import signal
import sys
from pathlib import Path

from . import _orb
from . import launcher
from . import paths
from ._orb import HrpsimError

DEFAULT_MODEL = "samples/models/humanoid/humanoid.wrl"


def _out(text=""):
    print(text, flush=True)


def _err(text):
    print(text, file=sys.stderr, flush=True)


def _report(kind, text):
    if kind == "warning":
        _err("hrpsim: warning: " + text)
    else:
        _out("hrpsim: " + text)


def _positive_float(text):
    """argparse type: a finite number > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("not a number: %r" % text) from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError("must be a positive number: %r" % text)
    return value


def _cli_orb():
    """Initialise the ORB for the command: connection attempts give up after 2 s."""
    import omniORB
    _orb.get_orb()
    omniORB.setClientConnectTimeout(2000)


def _state_dir_hint(sd):
    default = launcher.StateDir(None).path
    return "" if sd.path == default else " --state-dir %s" % sd.path


# ---------------------------------------------------------------------------------------------
# commands
# ---------------------------------------------------------------------------------------------

def _terminate(signum, frame):
    raise SystemExit(128 + signum)


def cmd_up(args):
    _cli_orb()
    # a SIGTERM while starting unwinds through up(), which stops what it started
    signal.signal(signal.SIGTERM, _terminate)
    if args.naming_port is not None and not 0 < args.naming_port < 65536:
        raise HrpsimError("--naming-port must be a TCP port (1-65535)")
    try:
        state = launcher.up(state_dir=args.state_dir, naming=args.naming,
                            naming_port=args.naming_port, bin_dir=args.bin_dir, only=args.only,
                            timeout=args.timeout, report=_report, dynamics=args.dynamics,
                            viewer=args.viewer, viewer_port=args.viewer_port,
                            **_exposure_args(args))
    except launcher.AlreadyRunning as exc:
        _err("hrpsim: " + str(exc))
        return 1
    sd = launcher.StateDir(state["state_dir"])
    naming = state["naming"]
    servers = [r for r in state["processes"] if r["kind"] == "server"]
    _out("hrpsim: up: %d server(s) in %s (state %s, logs %s)"
         % (len(servers), sd.path, sd.state_file, sd.logs_dir))
    if state.get("exposed"):
        _out("hrpsim: listening on %s: ModelLoader serves only %s; shutdown() from clients %s"
             % (state["listen"], ", ".join(state["model_roots"]),
                "allowed" if state["allow_remote_shutdown"] else "refused"))
    _out("")
    if state.get("viewer_url"):
        _out("Viewer (OnlineViewer): %s" % state["viewer_url"])
        _out("")
    _out("Connect with:")
    _out("  export HRPSIM_NAMING=%s" % naming)
    _out("  <program> -ORBInitRef NameService=%s" % naming)
    _out("Stop with:")
    _out("  hrpsim down%s" % _state_dir_hint(sd))
    return 0


def _exposure_args(args):
    return {"listen": args.listen, "model_roots": args.model_root or (),
            "allow_remote_shutdown": args.allow_remote_shutdown}


def cmd_down(args):
    sd = launcher.StateDir(args.state_dir)
    if sd.state_file.exists() and not _naming_started(sd):
        _cli_orb()  # an external naming service: `down` unbinds our stale names there
    results = launcher.down(args.state_dir, report=_report)
    if not results:
        if sd.state_file.exists():
            _out("hrpsim: nothing to stop in %s" % sd.path)
        else:
            _out("hrpsim: nothing running in %s" % sd.path)
        return 0
    stopped = sum(1 for _, outcome in results if outcome != "not running")
    _out("hrpsim: down: %d process(es) stopped, %d already gone; %s cleared"
         % (stopped, len(results) - stopped, sd.path))
    return 0


def _naming_started(sd):
    try:
        state = sd.load()
    except HrpsimError:
        return True
    return bool(state and state.get("naming_started"))


def cmd_status(args):
    _cli_orb()
    sd = launcher.StateDir(args.state_dir)
    result = launcher.status(args.state_dir)
    if result is None:
        _out("hrpsim: nothing running in %s (no %s)" % (sd.path, paths.STATE_FILE))
        return 1
    state, rows = result
    if args.json:
        _out(json.dumps({"state_dir": str(sd.path), "naming": state["naming"],
                         "processes": rows}, indent=2))
        return 0 if rows and all(r["ok"] for r in rows) else 1
    _out("state dir  %s" % sd.path)
    _out("naming     %s%s" % (state["naming"],
                              "" if state.get("naming_started") else " (external)"))
    if state.get("exposed"):
        _out("exposed    listening on %s; model roots %s; client shutdown() %s"
             % (state["listen"], ", ".join(state.get("model_roots", [])) or "none",
                "allowed" if state.get("allow_remote_shutdown") else "refused"))
    if state.get("viewer_url"):
        _out("viewer     %s" % state["viewer_url"])
    width = max([len("name")] + [len(r["name"]) for r in rows])
    bwidth = max([len("naming")] + [len(r["binding"]) for r in rows])
    _out("")
    _out("%-*s  %7s  %-7s  %-*s  %s" % (width, "name", "pid", "process", bwidth, "naming",
                                        "executable"))
    for r in rows:
        _out("%-*s  %7s  %-7s  %-*s  %s" % (
            width, r["name"], r["pid"] if r["pid"] is not None else "-",
            "alive" if r["alive"] else "dead", bwidth, r["binding"], r["exe"]))
    ok = bool(rows) and all(r["ok"] for r in rows)
    _out("")
    _out("all running" if ok else "NOT all running (see `hrpsim down%s` and the logs in %s)"
         % (_state_dir_hint(sd), sd.logs_dir))
    return 0 if ok else 1


def cmd_env(args):
    # stdout is meant for `eval`: only export lines there, every complaint on stderr
    sd = launcher.StateDir(args.state_dir)
    state = sd.load()
    if state is None or not state.get("naming"):
        _err("hrpsim env: nothing running in %s (start the servers with `hrpsim up%s`)"
             % (sd.path, _state_dir_hint(sd)))
        return 1
    naming_recs = [r for r in state.get("processes", []) if r.get("kind") == "naming"]
    if naming_recs and not all(launcher.is_ours(r) for r in naming_recs):
        _err("hrpsim env: the naming service recorded in %s is not running any more (run "
             "`hrpsim down%s`, then `hrpsim up`)" % (sd.path, _state_dir_hint(sd)))
        return 1
    _out("export HRPSIM_NAMING=%s" % shlex.quote(state["naming"]))
    if sd.path != launcher.StateDir(None).path or args.state_dir is not None:
        _out("export HRPSIM_STATE_DIR=%s" % shlex.quote(str(sd.path)))
    return 0


def _resolve_model(model):
    """A model path: as given if it exists, else relative to the repo or to samples/models."""
    if "://" in model:
        return model
    p = Path(model).expanduser()
    if p.exists() or p.is_absolute():
        return str(p.resolve())
    for base in (paths.repo_root(), paths.samples_dir() / "models"):
        if (base / p).exists():
            return str((base / p).resolve())
    return str(p.resolve())


def cmd_demo(args):
    import hrpsim
    from omniORB import CORBA
    _cli_orb()
    naming = args.naming
    if naming is None:
        naming = hrpsim.naming_from_environment(args.state_dir)
    client = hrpsim.connect(naming)
    model = _resolve_model(args.model or DEFAULT_MODEL)
    loader = client.model_loader()
    try:
        body = loader.loadBodyInfo(hrpsim.file_url(model))
    except hrpsim.OpenHRP.ModelLoader.ModelLoaderException as exc:
        _err("hrpsim: ModelLoader could not load %s: %s" % (model, exc.description))
        return 1
    except CORBA.SystemException as exc:
        _err("hrpsim: loadBodyInfo(%s) failed: %s" % (model, _orb.describe_exception(exc)))
        return 1
    summary = hrpsim.body_summary(body)
    if args.json:
        _out(json.dumps(summary, indent=2))
    else:
        _out("naming      %s" % client.naming)
        _out(hrpsim.format_summary(summary))
    return 0


def cmd_run_local(args):
    # `hrpsim run --local`: in process, no servers (run_local.py); the same results directory
    # and the same lines as a server run
    from .run_local import run_local
    if args.quiet:
        from .local import set_log_level
        set_log_level("error")  # (nor the core's own warnings: the models', the engine's)
    if args.view:
        _err("hrpsim run: --view needs the servers (the viewer is an OnlineViewer the "
             "Scheduler pushes to); replay a local run with `hrpsim view RESULTS`")
        return 1
    try:
        out, summary = run_local(args.project, out_dir=args.out,
                                 warn=None if args.quiet else
                                 (lambda text: _err("hrpsim run: warning: " + text)),
                                 plots=not args.no_plots, cameras=args.cameras,
                                 real_time=args.real_time)
    except (HrpsimError, OSError, ValueError, KeyError, RuntimeError) as exc:
        _err("hrpsim run: %s" % str(exc).replace("\n", " "))
        return 1
    if not args.quiet:
        _out("hrpsim run: %d steps, %.3f s simulated in %.3f s (x%.2f real time), in process"
             % (summary["steps"], summary["simulated_time"], summary["wall_time"],
                summary["real_time_factor"]))
    _out("hrpsim run: results in %s" % out)
    return 0


def cmd_run(args):
    # every failure is one line "hrpsim run: <reason>" and exit status 1
    if args.local:
        return cmd_run_local(args)
    from . import run as run_mod
    from omniORB import CORBA
    _cli_orb()
    signal.signal(signal.SIGTERM, _terminate)

    def warn(text):
        if not args.quiet:
            _err("hrpsim run: warning: " + text)

    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    viewer_started = []  # [True] once a viewer was started for this run (it stops with it)

    def on_viewer(url, started_here):
        viewer_started.append(started_here)
        if url:
            _out("hrpsim run: viewer at %s" % url)
            if started_here and not interactive:
                _out("hrpsim run: this viewer stops when the run ends (not at a terminal); "
                     "replay the run afterwards with `hrpsim view RESULTS`")
        else:
            _out("hrpsim run: showing the run in the OnlineViewer bound in the naming service")

    def after_run(out):
        # a viewer started for this run stops with it: at a terminal, keep it up until asked;
        # elsewhere nobody can ask, so say plainly that it stops and how to replay
        if not (args.view and any(viewer_started)):
            return
        if interactive:
            _out("hrpsim run: results in %s; press Enter (or Ctrl-C) to stop the viewer"
                 % out)
            try:
                sys.stdin.readline()
            except KeyboardInterrupt:
                pass
        else:
            _out("hrpsim run: the run has ended and its viewer stops now; replay it with: "
                 "hrpsim view %s" % shlex.quote(str(out)))

    try:
        out, summary = run_mod.run_project(
            args.project, out_dir=args.out, state_dir=args.state_dir,
            plots=not args.no_plots, progress=None if not args.quiet else False, warn=warn,
            view=args.view, real_time=args.real_time, on_viewer=on_viewer,
            after_run=after_run, view_rate=args.view_rate, cameras=args.cameras)
    except HrpsimError as exc:
        _err("hrpsim run: %s" % str(exc).replace("\n", " "))
        return 1
    except CORBA.SystemException as exc:
        _err("hrpsim run: %s" % _orb.describe_exception(exc))
        return 1
    except OSError as exc:
        _err("hrpsim run: %s" % exc)
        return 1
    if not args.quiet:
        _out("hrpsim run: %d steps, %.3f s simulated in %.3f s (x%.2f real time)"
             % (summary["steps"], summary["simulated_time"], summary["wall_time"],
                summary["real_time_factor"]))
    _out("hrpsim run: results in %s" % out)
    return 0


def cmd_view(args):
    import asyncio

    from .viewer.live import ViewerError
    from .viewer.replay import ReplaySource, newest_results
    from .viewer.web import ViewerApp, start_site
    results = args.results
    if results is None:
        results = newest_results(args.base)
        if results is None:
            _err("hrpsim view: no results directory under %s/ (run a project with `hrpsim run`,"
                 " or name a directory)" % args.base)
            return 1
    try:
        source = ReplaySource(results)
    except ViewerError as exc:
        _err("hrpsim view: %s" % exc)
        return 1
    source.add_listener(lambda event: source.error and _err("hrpsim view: cannot replay %s: %s"
                                                            % (source.dir, source.error)))
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        runner, url = loop.run_until_complete(start_site(ViewerApp(source), args.host,
                                                         args.port))
    except OSError as exc:
        _err("hrpsim view: cannot serve on %s:%s: %s" % (args.host, args.port, exc))
        return 1
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    _out("hrpsim view: %s (%d records, %.3f s) at %s"
         % (source.dir, len(source.times), source.times[-1] if len(source.times) else 0.0,
            url))
    _out("hrpsim view: Ctrl-C to stop")
    try:
        loop.run_until_complete(stop.wait())
    finally:
        loop.run_until_complete(runner.cleanup())
        loop.close()
    return 0


# ---------------------------------------------------------------------------------------------
# argument parsing
# ---------------------------------------------------------------------------------------------

def build_parser():
    server_names = ", ".join(name for name, _ in paths.SERVERS)
    p = argparse.ArgumentParser(
        prog="hrpsim",
        description="Start, stop and use the hrpsim CORBA servers (OpenHRP 3.1 compatible).",
        epilog="State lives in --state-dir (default $HRPSIM_STATE_DIR or ~/.hrpsim/default); "
               "clients find the naming service through $HRPSIM_NAMING or that state.")
    p.add_argument("--version", action="version", version="hrpsim " + _version())
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    def state_dir_arg(sp):
        sp.add_argument("--state-dir", metavar="DIR", default=None,
                        help="state directory (default: $HRPSIM_STATE_DIR or "
                             "~/.hrpsim/default)")

    up = sub.add_parser(
        "up", help="start the naming service and the servers",
        description="Start omniNames on a free loopback port (unless --naming is given) and "
                    "every known server whose executable is in the bin dir, wait until each "
                    "has bound its name, and record them in STATE_DIR/state.json. Known "
                    "servers: %s." % server_names)
    state_dir_arg(up)
    g = up.add_mutually_exclusive_group()
    g.add_argument("--naming", metavar="CORBALOC",
                   help="use this running naming service instead of starting omniNames")
    g.add_argument("--naming-port", metavar="N", type=int,
                   help="start omniNames on port N instead of a free one")
    up.add_argument("--bin-dir", metavar="DIR",
                    help="server executables (default: $HRPSIM_BIN_DIR or <repo>/build/bin)")
    up.add_argument("--only", metavar="NAME", nargs="*",
                    help="start only these servers (names as in the naming service); "
                         "with no NAME, only the naming service; a missing executable is "
                         "then an error instead of a warning")
    up.add_argument("--dynamics", metavar="N", type=int, default=1,
                    help="start N hrpsim-dynamics processes (default 1), bound as "
                         "DynamicsSimulatorFactory, DynamicsSimulatorFactory1, ..., "
                         "DynamicsSimulatorFactory<N-1>; hrpsim.sweep runs in parallel "
                         "over them")
    exposure = up.add_argument_group(
        "exposure", "By default everything listens on 127.0.0.1 only. --listen ADDR makes the "
                    "naming service and the servers listen on ADDR instead (an address of this "
                    "host that other hosts use); then the ModelLoader serves only files under "
                    "the --model-root directories and clients cannot shutdown() the servers. "
                    "Example: hrpsim up --listen 192.168.1.20 --model-root ~/models")
    exposure.add_argument("--listen", metavar="ADDR",
                          help="listen on ADDR instead of 127.0.0.1 (needs --model-root)")
    exposure.add_argument("--model-root", metavar="DIR", action="append",
                          help="the ModelLoader serves only files under DIR (repeatable; "
                               "symbolic links resolved first); also usable on loopback")
    exposure.add_argument("--allow-remote-shutdown", action="store_true",
                          help="let clients stop exposed servers with shutdown()")
    up.add_argument("--viewer", action="store_true",
                    help="also start the web viewer, bound as OnlineViewer; its page's URL "
                         "is printed (open it in a browser; over SSH forward the port)")
    up.add_argument("--viewer-port", metavar="N", type=int, default=0,
                    help="loopback HTTP port of the viewer's page (default: a free one)")
    up.add_argument("--timeout", metavar="SECONDS", type=float, default=10.0,
                    help="how long each process may take to answer (default 10)")
    up.set_defaults(func=cmd_up)

    down = sub.add_parser(
        "down", help="stop what `up` started",
        description="Stop exactly the processes recorded by `up` (SIGTERM, then SIGKILL "
                    "after 5 s), servers first, the naming service last, and remove the "
                    "state file. With nothing running it says so and succeeds.")
    state_dir_arg(down)
    down.set_defaults(func=cmd_down)

    st = sub.add_parser(
        "status", help="show the recorded processes and whether they answer",
        description="List each process `up` recorded: pid, alive or dead, and whether its "
                    "name is bound in the naming service to the object it registered and "
                    "that object answers. Exit status 0 if everything is running and "
                    "answering, 1 otherwise, including when nothing was started.")
    state_dir_arg(st)
    st.add_argument("--json", action="store_true", help="print the status as JSON")
    st.set_defaults(func=cmd_status)

    env = sub.add_parser(
        "env", help="print shell exports for the running servers",
        description="Print 'export HRPSIM_NAMING=...' (and HRPSIM_STATE_DIR when a state dir "
                    "is given) for the servers `hrpsim up` started, so that a shell can take "
                    "them over: eval \"$(.venv/bin/hrpsim env)\". Exit status 1, with nothing "
                    "on stdout, if nothing is running there.",
        epilog="example: eval \"$(.venv/bin/hrpsim env)\"; "
               "build/bin/hrpsim-print-tree -ORBInitRef NameService=$HRPSIM_NAMING "
               "samples/models/arm6/arm6.wrl")
    state_dir_arg(env)
    env.set_defaults(func=cmd_env)

    demo = sub.add_parser(
        "demo", help="load a model through the ModelLoader and print a summary",
        description="Connect to the running servers (--naming, else $HRPSIM_NAMING, else "
                    "the state dir; an explicit --state-dir wins over $HRPSIM_NAMING), load "
                    "MODEL with ModelLoader.loadBodyInfo and summarise the BodyInfo.")
    state_dir_arg(demo)
    demo.add_argument("--naming", metavar="CORBALOC", help="naming service to use")
    demo.add_argument("--json", action="store_true", help="print the full summary as JSON")
    demo.add_argument("model", metavar="MODEL", nargs="?",
                      help="model file or URL (default: %s in the repository)"
                           % DEFAULT_MODEL)
    demo.set_defaults(func=cmd_demo)

    run = sub.add_parser(
        "run", help="run a project through the Scheduler and write a results directory",
        description="Run PROJECT (hrpsim's project XML or an OpenHRP GrxUI project) through "
                    "the Scheduler server: use the servers of $HRPSIM_NAMING or the state "
                    "dir if a Scheduler answers there, else start them in a private state "
                    "dir and stop them afterwards; start the project's command controllers; "
                    "show progress; write log.npz, summary.json, summary.txt, plots and "
                    "stills (framed on the robots at the start, the end and the moments of "
                    "largest motion) to the results directory and print where it is. Exit "
                    "status 0 on success, 1 with one line 'hrpsim run: <reason>' on any "
                    "error.")
    state_dir_arg(run)
    run.add_argument("--out", metavar="DIR",
                     help="results directory (default results/<project>-<timestamp>); an "
                          "earlier run's results there are replaced, a non-empty directory "
                          "that is not one is refused")
    run.add_argument("--no-plots", action="store_true",
                     help="do not write PNG plots or stills")
    run.add_argument("--quiet", action="store_true",
                     help="no progress bar, warnings or statistics; only the results line")
    run.add_argument("--view", action="store_true",
                     help="show the run live in the web viewer (the OnlineViewer of `hrpsim "
                          "up --viewer`, else one started for the run; its URL is printed)")
    run.add_argument("--real-time", metavar="FACTOR", type=float, default=None,
                     help="pace the run: 1 real time, 0.5 half speed, 0 as fast as possible "
                          "(default: the project's realTime)")
    run.add_argument("--view-rate", metavar="HZ", type=_positive_float, default=None,
                     help="frames per second of simulated time sent to the viewer (default: "
                          "the project's viewRate, else 30); the run never waits for them")
    run.add_argument("--cameras", action=argparse.BooleanOptionalAction, default=None,
                     help="render every vision sensor at its frame rate and store the frames "
                          "in RESULTS/cameras/ (--no-cameras: do not; default: the project's "
                          "<cameras enabled=...>, off when it has none). Rendering costs "
                          "time: with the sample squat's two head cameras about a quarter of "
                          "the scheduler's CPU time goes to rendering them and writing PNGs")
    run.add_argument("--local", action="store_true",
                     help="run in this process on the local back end (no servers): the "
                          "project's controllers must be Python classes (python=FILE:CLASS); "
                          "writes the same results directory as a server run")
    run.add_argument("project", metavar="PROJECT", help="project file")
    run.set_defaults(func=cmd_run)

    view = sub.add_parser(
        "view", help="replay a results directory in the web viewer",
        description="Serve the viewer's page over a finished run: the bodies the run loaded "
                    "(models.json.gz), its log (log.npz), summary and plots. With no "
                    "RESULTS_DIR, the newest directory under ./results. Prints the URL and "
                    "serves until Ctrl-C.",
        epilog="Example: hrpsim view results/humanoid_squat-20260101-120000 --port 8765")
    view.add_argument("results", metavar="RESULTS_DIR", nargs="?",
                      help="results directory of `hrpsim run` (default: the newest)")
    view.add_argument("--base", metavar="DIR", default="results",
                      help="where to look for the newest run (default ./results)")
    view.add_argument("--host", default="127.0.0.1", help="HTTP address (default 127.0.0.1)")
    view.add_argument("--port", type=int, default=0, help="HTTP port (default: a free one)")
    view.set_defaults(func=cmd_view)

    from . import sweep_cli
    sweep_cli.add_parser(sub)
    return p


def _version():
    from . import __version__
    return __version__


def main(argv=None):
    """Entry point of the `hrpsim` console script; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except HrpsimError as exc:
        _err("hrpsim: %s" % exc)
        return 1
    except ImportError as exc:
        _err("hrpsim: %s" % exc)
        return 1
    except KeyboardInterrupt:
        _err("hrpsim: interrupted")
        return 130


if __name__ == "__main__":
    sys.exit(main())
