"""`hrpsim run PROJECT`: the main job.

1. parse the project (hrpsim's format or GrxUI's; errors name file, line and field);
2. find running servers (``$HRPSIM_NAMING`` or the state dir) with a Scheduler bound; if there
   are none, start a naming service and the servers in a fresh private state dir (the
   launcher's ``up``) and stop them afterwards;
3. start the controllers the project gives a ``command`` for (argv + ``-ORBInitRef
   NameService=...``, cwd the project's directory, output to ``<results>/<name>.log``) and
   wait until each has bound its name;
4. configure the Scheduler from the project and ``start()`` it; while it runs, show a progress
   bar on stderr (when stderr is a terminal) and fetch the log with ``getLog``;
5. when the run ends, stop the controllers (SIGTERM, SIGKILL after a grace period) and
   record how each ended; write the results directory (results.py), including
   ``models.json.gz`` (the body descriptions a replay draws, `hrpsim view`), and return it;
   stop any servers started here, whatever happened.

With ``view=True`` the run is shown live: the Scheduler is given the ``OnlineViewer`` bound in
the naming service (`hrpsim up --viewer`), or one started here for the run (``viewer.py``'s
process, stopped afterwards), and pushes every log record to it. The viewer's page server is
also given the Scheduler (``POST api/control``), so its page can pause, resume and step the
run and push links (Scheduler.push); a run paused from the page stays paused until the page
(or anyone) resumes it.

Failures raise ``RunError`` whose text is the one-line reason `hrpsim run` prints. A run the
Scheduler stopped (a controller raised, hung or vanished) still writes its results directory
before failing with the Scheduler's message (which names the controller and the time). The
controllers' processes count too: the run's status is FAILED, with the controller named, if
one exits on its own during the run, ends with a non-zero status or a signal other than our
SIGTERM when stopped (a crash on the way out), or has to be killed; the summary keeps each
process's exit status and the Scheduler's own verdict (``scheduler_status``).
"""

import contextlib
import dataclasses
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

from . import _orb
from . import _process
from . import launcher
from .limits import steps_to_reach
from ._orb import HrpsimError
from .project import load_project, ProjectError  # noqa: F401 - re-exported for callers
from .results import LogCollector, write_results
from .summary import joint_names_by_id

POLL_S = 0.2                 # progress bar and log fetch period (~5 updates per second)
CONTROLLER_BIND_TIMEOUT_S = 30.0
CONTROLLER_STOP_GRACE_S = 5.0
REQUIRED_SERVERS = ("ModelLoader", "Scheduler")


class RunError(HrpsimError):
    """`hrpsim run` failed; the text is the one-line reason."""


# ---------------------------------------------------------------------------------------------
# servers
# ---------------------------------------------------------------------------------------------

def _no_scheduler_reason(naming):
    """Why the naming service at ``naming`` offers no live Scheduler, in words."""
    try:
        ctx = _orb.naming_context(naming, 2000)
        obj = _orb.resolve_name(ctx, "Scheduler")
    except Exception:  # noqa: BLE001 - anything means "not reachable"
        return "its naming service does not answer"
    if obj is None:
        return "no Scheduler is bound in it"
    return "the Scheduler bound in it does not answer"


def _scheduler_at(naming):
    """(client, scheduler) if a naming service at ``naming`` has a live Scheduler, else None."""
    import hrpsim
    import hrpsim._idl.hrpsim as H
    try:
        ctx = _orb.naming_context(naming, 2000)
        obj = _orb.resolve_name(ctx, "Scheduler")
        if obj is None or not _orb.is_alive(obj, 2000):
            return None
        client = hrpsim.connect(naming)
        sched = client.resolve("Scheduler", H.Scheduler)
        _orb.set_call_timeout(sched, 0)
        return client, sched
    except (HrpsimError, Exception):  # noqa: BLE001 - anything means "not reachable"
        return None


class Servers:
    """Running servers to use: found, or started here (and then stopped by ``close``)."""

    def __init__(self, state_dir=None, bin_dir=None, report=None, timeout=30.0, note=None):
        """``note(text)``, if given, is told once when ``$HRPSIM_NAMING`` names a naming
        service that is not used (it does not answer, or has no live Scheduler)."""
        import hrpsim
        self.private_dir = None
        self.naming = None
        found = None
        try:
            naming = hrpsim.naming_from_environment(state_dir)
            found = _scheduler_at(naming)
            if found:
                self.naming = naming
        except HrpsimError:
            found = None
        env = os.environ.get("HRPSIM_NAMING") if state_dir is None else None
        if found is None and env and note:
            note("not using the naming service HRPSIM_NAMING names (%s): %s; this run starts "
                 "servers of its own and stops them when it ends"
                 % (env, _no_scheduler_reason(env)))
        if found is None:
            self.private_dir = Path(tempfile.mkdtemp(prefix="hrpsim-run-"))
            try:
                state = launcher.up(state_dir=self.private_dir, bin_dir=bin_dir,
                                    timeout=timeout, report=report or (lambda k, t: None))
            except HrpsimError as exc:
                self.close()
                raise RunError("could not start the servers: %s" % exc) from exc
            self.naming = state["naming"]
            missing = [r for r in REQUIRED_SERVERS
                       if not any(p["name"] == r for p in state["processes"])]
            if missing:
                self.close()
                raise RunError("no %s server executable in %s (build it, or set "
                               "HRPSIM_BIN_DIR)" % (" or ".join(missing),
                                                     bin_dir or launcher.paths.default_bin_dir()))
            found = _scheduler_at(self.naming)
            if found is None:
                self.close()
                raise RunError("the Scheduler started but does not answer at %s" % self.naming)
        self.client, self.scheduler = found

    @property
    def started(self):
        return self.private_dir is not None

    def close(self):
        if self.private_dir is not None:
            try:
                launcher.down(self.private_dir, report=lambda k, t: None)
            finally:
                shutil.rmtree(self.private_dir, ignore_errors=True)
                self.private_dir = None


# ---------------------------------------------------------------------------------------------
# controllers started from a command line
# ---------------------------------------------------------------------------------------------

@dataclasses.dataclass
class ControllerProcess:
    """One controller process `hrpsim run` started, and how it ended.

    ``returncode`` is Popen's (negative: killed by that signal); ``ended`` says how:
    "running", "exited during the run", "stopped" (exited after our SIGTERM) or "killed"
    (still alive ``CONTROLLER_STOP_GRACE_S`` after the SIGTERM, so SIGKILLed). ``failure``
    is why the Scheduler stopped the run because of this controller (a call that raised or
    timed out), or None.
    """

    spec: object
    proc: subprocess.Popen
    log_path: Path
    returncode: int = None
    ended: str = "running"
    failure: str = None

    @property
    def ok(self):
        """True unless it failed: the Scheduler stopped the run because of it, it exited on
        its own during the run, exited with a non-zero status or a signal other than our
        SIGTERM when stopped, or had to be killed."""
        if self.failure:
            return False
        if self.ended == "running":
            return True
        if self.ended != "stopped":
            return False
        return self.returncode in (0, -signal.SIGTERM)

    def describe(self):
        """How it ended, in words: "exit status 0", "killed by SIGABRT", ..."""
        code = self.returncode
        failed = self.failure + "; " if self.failure else ""
        if code is None:
            return failed + "running"
        what = ("exit status %d" % code if code >= 0
                else "killed by %s" % _signal_name(-code))
        if self.ended == "killed":
            return failed + "did not stop within %g s of SIGTERM; SIGKILLed (%s)" % (
                CONTROLLER_STOP_GRACE_S, what)
        if self.ended == "exited during the run":
            return failed + "%s during the run" % what
        return failed + "%s when stopped" % what

    def record(self):
        """The summary's view of this process (JSON-ready)."""
        code = self.returncode
        return {"pid": self.proc.pid, "exit_status": code if code is None or code >= 0 else None,
                "signal": _signal_name(-code) if code is not None and code < 0 else None,
                "ended": self.ended, "ok": self.ok, "result": self.describe(),
                "log": self.log_path.name}


def _signal_name(num):
    try:
        return signal.Signals(num).name
    except ValueError:
        return "signal %d" % num


class ControllerProcesses:
    """The project's command controllers, started and stopped as a group."""

    def __init__(self):
        self.procs = []  # ControllerProcess, in project order

    def start(self, project, naming, log_dir):
        ctx = _orb.naming_context(naming, 5000)
        for spec in project.controllers:
            if not spec.command:
                continue
            previous_ior = _orb.bound_ior(ctx, spec.name)
            log_path = Path(log_dir) / ("controller-%s.log" % spec.name.replace("/", "_"))
            argv = list(spec.command) + ["-ORBInitRef", "NameService=" + naming]
            env = dict(os.environ, HRPSIM_NAMING=naming)
            try:
                with open(log_path, "wb") as log:
                    proc = subprocess.Popen(argv, cwd=str(Path(project.path).resolve().parent),
                                            stdin=subprocess.DEVNULL, stdout=log,
                                            stderr=subprocess.STDOUT, env=env,
                                            start_new_session=True)
            except OSError as exc:
                raise RunError("%s:%s: controller %s: cannot start %r: %s"
                               % (project.path, spec.line, spec.name, argv[0],
                                  exc.strerror)) from exc
            self.procs.append(ControllerProcess(spec, proc, log_path))
            self._wait_bound(ctx, spec, proc, log_path, previous_ior)

    def _wait_bound(self, ctx, spec, proc, log_path, previous_ior):
        try:
            _orb.wait_new_binding(ctx, spec.name, proc.poll, CONTROLLER_BIND_TIMEOUT_S,
                                  previous_ior, ping_ms=2000)
        except _orb.NotBound as exc:
            if exc.code is not None:
                raise RunError("controller %s exited with status %s before binding its name "
                               "(%s)%s" % (spec.name, exc.code, log_path,
                                           _last_line(log_path))) from None
            raise RunError("controller %s did not bind its name within %g s (%s)"
                           % (spec.name, CONTROLLER_BIND_TIMEOUT_S, log_path)) from None

    def poll(self):
        """The first started controller that has exited on its own during the run, or None."""
        for cp in self.procs:
            if cp.ended == "running":
                code = cp.proc.poll()
                if code is not None:
                    cp.returncode, cp.ended = code, "exited during the run"
                    return cp
        return None

    def stop(self):
        """SIGTERM every controller still running, wait up to CONTROLLER_STOP_GRACE_S for
        each, SIGKILL the stragglers; record how each ended. Idempotent."""
        while self.poll() is not None:  # every one that already exited on its own
            pass
        running = [cp for cp in self.procs if cp.ended == "running"]
        outcomes = _process.stop_groups([cp.proc for cp in running], CONTROLLER_STOP_GRACE_S)
        for cp, (ended, code) in zip(running, outcomes):
            cp.ended, cp.returncode = ended, code
        return self.procs

    def failure(self):
        """One line naming the first controller that failed (see ControllerProcess.ok)."""
        for cp in self.procs:
            if not cp.ok:
                return "controller %s (pid %d): %s (%s)%s" % (
                    cp.spec.name, cp.proc.pid, cp.describe(), cp.log_path,
                    _last_line(cp.log_path))
        return None


def exception_line(path):
    """The last line of the last Python traceback in the log at ``path`` ("ValueError: ..."),
    or None (no traceback, no log)."""
    try:
        lines = Path(path).read_text(errors="replace").splitlines()
    except OSError:
        return None
    starts = [i for i, ln in enumerate(lines) if ln.startswith("Traceback (most recent call")]
    if not starts:
        return None
    for ln in lines[starts[-1] + 1:]:
        if ln.strip() and not ln[:1].isspace():
            return ln.strip()
    return None


# the Scheduler's message for a run a controller stopped (scheduler.cpp)
_CONTROLLER_FAILED = re.compile(r"controller '(?P<name>.+?)' failed at t = (?P<t>\S+) s: "
                                r"(?P<why>.*)", re.S)


def explain_controller_failure(message, procs):
    """The Scheduler's ``message`` of a run stopped by a controller, made to say what happened
    inside the controller: for a controller hrpsim run started (in ``procs``), a Python
    exception's last line from its log replaces "CORBA::UNKNOWN (UNKNOWN_PythonException)",
    and the log file is named. Returns (message, name of the controller or None); the
    ControllerProcess of that controller gets its ``failure``."""
    m = _CONTROLLER_FAILED.match(message or "")
    if m is None:
        return message, None
    name, why = m.group("name"), m.group("why")
    cp = next((c for c in procs if c.spec.name == name), None)
    if cp is not None:
        exc = exception_line(cp.log_path)
        python = "CORBA::UNKNOWN (UNKNOWN_PythonException)"
        if exc and python in why:
            why = why.replace(python, exc)
        elif exc:
            why = "%s (the log's last exception: %s)" % (why, exc)
        cp.failure = "%s at t = %s s" % (why, m.group("t"))
        why += "; traceback and output in %s" % cp.log_path
    return "controller %s failed at t = %s s: %s" % (name, m.group("t"), why), name


def _last_line(path):
    try:
        lines = [ln for ln in Path(path).read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return ""
    return ": " + lines[-1].strip() if lines else ""


# ---------------------------------------------------------------------------------------------
# the online viewer of `hrpsim run --view`
# ---------------------------------------------------------------------------------------------

class RunViewer:
    """The OnlineViewer a run shows itself in: the one bound in the naming service if it
    answers, else a viewer process started here (``python -m hrpsim.viewer``) and stopped by
    ``close``. ``ref`` is the OpenHRP.OnlineViewer, ``url`` its page (None if unknown)."""

    def __init__(self, client, naming, log_dir, state_dir=None, timeout=30.0):
        from hrpsim import OpenHRP
        self.proc = None
        self.url = None
        self.ref = None
        obj = _orb.resolve_name(client.root, launcher.paths.VIEWER)
        if obj is not None and _orb.is_alive(obj, 2000):
            self.ref = obj._narrow(OpenHRP.OnlineViewer)
            self.url = self._recorded_url(naming, state_dir)
            return
        url_file = Path(tempfile.mkdtemp(prefix="hrpsim-viewer-")) / "viewer.url"
        argv = launcher.viewer_argv(url_file, naming) + ["--name", "OnlineViewer"]
        self._log = open(Path(log_dir) / "viewer.log", "wb")
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=self._log,
                                     stderr=subprocess.STDOUT, env=launcher.viewer_env(),
                                     start_new_session=True)
        try:
            obj = _orb.wait_new_binding(client.root, launcher.paths.VIEWER, self.proc.poll,
                                        timeout, ready=url_file.exists)
        except _orb.NotBound as exc:
            if exc.code is not None:
                raise RunError("the viewer exited with status %s (%s)"
                               % (exc.code, Path(log_dir) / "viewer.log")) from None
            self.close()
            raise RunError("the viewer did not start within %g s (%s)"
                           % (timeout, Path(log_dir) / "viewer.log")) from None
        self.ref = obj._narrow(OpenHRP.OnlineViewer)
        self.url = url_file.read_text().strip()
        shutil.rmtree(url_file.parent, ignore_errors=True)

    @staticmethod
    def _recorded_url(naming, state_dir):
        # the URL `hrpsim up --viewer` recorded, when that up owns this naming service
        try:
            state = launcher.StateDir(state_dir).load()
        except HrpsimError:
            state = None
        if state and state.get("naming") == naming:
            return state.get("viewer_url")
        return None

    @property
    def started(self):
        return self.proc is not None

    def show_cameras(self, out_dir, timeout=2.0):
        """Tell the viewer's page server where this run stores its camera frames (POST
        api/cameras), so its pages show them as they are written. Returns None, or why not."""
        return self._post("api/cameras", {"dir": str(Path(out_dir).resolve())}, timeout)

    def _post(self, route, body, timeout):
        import json
        import urllib.error
        import urllib.request
        if not self.url:
            return "the viewer's page address is not known"
        req = urllib.request.Request(self.url + route, method="POST",
                                     data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout):
                return None
        except (OSError, urllib.error.URLError) as exc:
            return str(exc)

    def give_control(self, sched, timeout=2.0):
        """Hand the viewer's page server the Scheduler of this run (POST api/control with its
        IOR; None: take it back), so its pages can pause, step and push. Returns None, or
        why not."""
        ior = _orb.get_orb().object_to_string(sched) if sched is not None else None
        return self._post("api/control", {"scheduler": ior}, timeout)

    def close(self):
        if self.proc is not None:
            if self.proc.poll() is None:
                _process.stop_groups([self.proc], CONTROLLER_STOP_GRACE_S)
            self._log.close()
            self.proc = None


# ---------------------------------------------------------------------------------------------
# progress bar
# ---------------------------------------------------------------------------------------------

class Progress:
    def __init__(self, end_time, enabled):
        self.end = end_time
        self.enabled = enabled
        self.shown = False

    def update(self, status):
        if not self.enabled:
            return
        frac = min(1.0, max(0.0, status.time / self.end)) if self.end > 0 else 0.0
        width = 30
        fill = int(round(frac * width))
        sys.stderr.write("\r[%s%s] %3d%%  t=%.2f/%.2f s  x%.2f real time%s "
                         % ("#" * fill, "." * (width - fill), int(frac * 100), status.time,
                            self.end, status.realTimeFactor,
                            " (paused)" if _enum(status.state) == "PAUSED" else ""))
        sys.stderr.flush()
        self.shown = True

    def done(self):
        if self.shown:
            sys.stderr.write("\n")
            sys.stderr.flush()
            self.shown = False


# ---------------------------------------------------------------------------------------------
# the job
# ---------------------------------------------------------------------------------------------

# the file that marks a directory as `hrpsim run`'s results (written before anything else)
RESULTS_MARKER = ".hrpsim-results"


def is_results_dir(out):
    """True if ``out`` holds the results of an earlier `hrpsim run`: the marker file, or (runs
    from before it existed) a summary.json with a project and a status."""
    out = Path(out)
    if (out / RESULTS_MARKER).is_file():
        return True
    try:
        import json
        summary = json.loads((out / "summary.json").read_text())
    except (OSError, ValueError):
        return False
    return isinstance(summary, dict) and "project" in summary and "status" in summary


def prepare_out_dir(out):
    """Make ``out`` ready for a new run: created if missing; an earlier run's results there
    are removed (frames, logs and plots of two runs must not mix); RunError for a non-empty
    directory that is not a results directory (nothing in it is touched) or for a file."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise RunError("--out %s is not a directory" % out)
    if out.is_dir() and any(out.iterdir()):
        if not is_results_dir(out):
            names = sorted(p.name for p in out.iterdir())
            raise RunError("--out %s is not empty and not an hrpsim results directory (it holds "
                           "%s%s); give a new or empty directory, or the results directory "
                           "of an earlier run (which is then replaced)"
                           % (out, ", ".join(names[:3]), ", ..." if len(names) > 3 else ""))
        for p in out.iterdir():
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p)
            else:
                p.unlink()
    out.mkdir(parents=True, exist_ok=True)
    (out / RESULTS_MARKER).write_text("written by `hrpsim run`; a new run into this directory "
                                      "replaces everything in it\n")
    return out


def default_out_dir(project, base="results"):
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    out = Path(base) / ("%s-%s" % (project.stem, stamp))
    n = 2
    while out.exists():
        out = Path(base) / ("%s-%s-%d" % (project.stem, stamp, n))
        n += 1
    return out


def _enum(v):
    return getattr(v, "_n", str(v))


def _describe_models(client, project):
    """The body description of every model of the project (what a replay draws), read
    through the ModelLoader with textures; RunError naming the model on failure."""
    import hrpsim
    from .viewer.live import ViewerError
    from .viewer.server import describe_url
    loader = client.model_loader()
    out = []
    for m in project.models:
        try:
            out.append({"name": m.name, "url": hrpsim.file_url(m.url),
                        "body": describe_url(loader, m.url)})
        except ViewerError as exc:
            raise RunError("%s:%s: model %s: %s" % (project.path, m.at("url"), m.name,
                                                     exc)) from exc
    return out


def _load_bodies(client, project):
    """Every model's BodyInfo links through the ModelLoader, by model name; RunError with
    the ModelLoader's file:line for a broken model."""
    from .errors import ModelError
    bodies = {}
    for m in project.models:
        try:
            bodies[m.name] = list(client.load_body(m.url)._get_links())
        except ModelError as exc:
            raise model_run_error(project, m, exc) from exc
    return bodies


def model_run_error(project, model, exc):
    """The RunError for a model of the project that does not load (hrpsim.errors.ModelError):
    "PROJECT:LINE: model NAME: FILE:LINE:COLUMN: problem", the same with or without --local."""
    return RunError("%s:%s: model %s: %s" % (project.path, model.at("url"), model.name, exc))


def _configure(sched, project, client, bodies, real_time, view_rate):
    """Configure the Scheduler from the project, then the command line's overrides."""
    import hrpsim._idl.hrpsim as H
    try:
        project.configure(sched, client, bodies)
        if real_time is not None:
            sched.setRealTime(float(real_time))
        if view_rate is not None:
            sched.setViewRate(float(view_rate))
    except H.SchedulerError as exc:
        raise RunError("scheduler refused the project: %s" % exc.description) from exc


def _attach_viewer(client, sched, naming, out, state_dir, cameras, warn, on_viewer):
    """A RunViewer attached to the Scheduler (`hrpsim run --view`); returns it."""
    viewer = RunViewer(client, naming, out, state_dir)
    viewer.ref.clearData()  # this run's models only; the Scheduler loads them
    sched.setOnlineViewer(viewer.ref)
    why = viewer.show_cameras(out) if cameras else None  # the page reads the files
    if why and warn:
        warn("the viewer will not show camera frames: %s" % why)
    why = viewer.give_control(sched)  # the page's pause, step and push buttons
    if why and warn:
        warn("the viewer's page cannot pause or push this run: %s" % why)
    if on_viewer:
        on_viewer(viewer.url, viewer.started)
    return viewer


def _follow_run(sched, log, bar, controllers, viewed=False):
    """Collect the log and show progress until the started run ends (or a controller
    process dies: the run is stopped); returns (final status, the dead controller or None).
    ``viewed``: the viewer's page may pause the run, and a paused run waits for it; else a
    pause (nobody else should pause our run) is undone at once."""
    import hrpsim._idl.hrpsim as H
    terminal = (H.FINISHED, H.FAILED)
    dead = None  # a controller process that exited during the run
    try:
        while True:
            status = sched.wait(POLL_S)
            log.add(sched.getLog(len(log)))
            bar.update(status)
            if status.state in terminal or status.state in (H.IDLE, H.READY):
                break
            if status.state == H.PAUSED:
                if viewed:
                    time.sleep(POLL_S)  # wait() returns at once while paused
                else:
                    sched.resume()
            dead = controllers.poll()
            if dead is not None:
                with contextlib.suppress(H.SchedulerError):
                    sched.stop()
                break
    finally:
        bar.done()
    log.add(sched.getLog(len(log)))
    return sched.status(), dead


def _judge(status, controllers, dead):
    """The run's outcome (state name, message, the blamed controller's name or None) from
    the Scheduler's status and how the (stopped) controller processes ended."""
    state, message = _enum(status.state), status.message
    message, blamed = explain_controller_failure(message, controllers.procs)
    if dead is not None:
        state, message = "FAILED", "controller %s (pid %d): %s at t = %g s (%s)%s" % (
            dead.spec.name, dead.proc.pid, dead.describe(), status.time, dead.log_path,
            _last_line(dead.log_path))
    elif state != "FAILED" and controllers.failure():
        state, message = "FAILED", controllers.failure()
    return state, message, blamed


def _summary(project, status, state, message, blamed, controllers, log, servers, engine):
    """The run's summary.json record (cameras and stills are added by the caller); ``engine``
    the Scheduler's answer."""
    from .results import controller_entries, run_summary
    processes = {cp.spec.name: cp.record() for cp in controllers.procs}
    return run_summary(project, backend="server", status=state, message=message,
                       scheduler_status=_enum(status.state),
                       scheduler_message=status.message,
                       controllers=controller_entries(project, blamed, processes),
                       steps=status.steps, simulated_time=status.time,
                       wall_time=status.wallTime, real_time_factor=status.realTimeFactor,
                       records=len(log), naming=servers.naming,
                       servers_started=servers.started, engine=engine or None)


def run_project(path, out_dir=None, state_dir=None, plots=True, progress=None, bin_dir=None,
                warn=None, view=False, real_time=None, on_viewer=None, after_run=None,
                view_rate=None, cameras=None):
    """Run the project at ``path``; return (results dir, summary dict).

    ``progress``: show a progress bar on stderr (default: when stderr is a terminal).
    ``warn(text)`` receives each project warning. ``view``: show the run in an OnlineViewer
    (see the module text); ``on_viewer(url, started_here)`` is called once it is attached.
    ``real_time``: a real-time factor that overrides the project's (0: as fast as possible).
    ``view_rate``: frames per second of simulated time pushed to the viewer, overriding the
    project's ``viewRate`` (default 30).
    ``cameras``: store the frames of every vision sensor in the results (True), or not (False);
    None: as the project says (``<cameras enabled="true"/>``; off by default).
    ``after_run(out)`` is called once the results are written, before anything started here
    is stopped (`hrpsim run --view` waits there so the page stays up). Raises ProjectError
    or RunError.
    """
    import hrpsim._idl.hrpsim as H
    from omniORB import CORBA

    project = load_project(path)
    for w in project.warnings:
        if warn:
            warn(w)
    if progress is None:
        progress = sys.stderr.isatty()
    out = Path(out_dir) if out_dir else default_out_dir(project)
    made_out = not out.exists()
    out = prepare_out_dir(out)
    written = False  # the results are written (a run that fails before leaves no directory)
    cameras = project.cameras if cameras is None else bool(cameras)

    servers = None
    controllers = ControllerProcesses()
    sched = None
    started = False
    viewer = None
    try:
        servers = Servers(state_dir=state_dir, bin_dir=bin_dir, note=warn)
        client, sched = servers.client, servers.scheduler

        # bodies first: a broken model fails here with the ModelLoader's file:line
        bodies = _load_bodies(client, project)
        models = _describe_models(client, project)
        controllers.start(project, servers.naming, out)
        seen = len(project.warnings)
        _configure(sched, project, client, bodies, real_time, view_rate)
        for w in project.warnings[seen:]:  # found against the models (a moved URDF anchor)
            if warn:
                warn(w)
        if view:
            viewer = _attach_viewer(client, sched, servers.naming, out, state_dir, cameras, warn,
                                    on_viewer)

        characters = []
        for m in project.models:
            characters.append((m.name, joint_names_by_id(bodies[m.name])))
        log = LogCollector(characters)
        # camera frames go into the results only when asked (hrpsim.images); "" also clears
        # what an earlier run left configured in a shared Scheduler
        try:
            sched.setCameraOutput(str(out.resolve()) if cameras else "")
        except H.SchedulerError as exc:
            if warn:
                warn("camera frames are not stored: %s" % exc.description)
        bar = Progress(project.end_time, progress)
        try:
            sched.start()
        except H.SchedulerError as exc:
            raise RunError("start failed: %s" % exc.description) from exc
        started = True
        try:
            engine = sched.engine()  # (the run's, whoever's servers: the summary says it)
        except CORBA.SystemException:
            engine = None  # (an older hrpsim's Scheduler has no engine(): the summary says null)
        status, dead = _follow_run(sched, log, bar, controllers, viewed=viewer is not None)
        started = False

        # the run is over: stop the controllers, and judge them by how they end
        controllers.stop()
        state, message, blamed = _judge(status, controllers, dead)

        arrays = log.arrays()
        summary = _summary(project, status, state, message, blamed, controllers, log, servers,
                           engine)
        if log.pushes:  # links pushed from the viewer's page (their forces are in log.npz)
            summary["pushes"] = sorted(log.pushes)
        from .images import write_previews
        from .stills import take_stills
        summary["cameras"] = cameras
        summary["camera_previews"] = [str(p.relative_to(out)) for p in write_previews(out)]
        summary["stills"] = take_stills(out, project.models, log, bin_dir, warn) \
            if plots and project.plots else []
        write_results(out, arrays, summary, plots=plots and project.plots,
                      plot_joints=project.plot_joints, models=models,
                      plot_root=project.plot_root)
        written = True
        if after_run:
            after_run(out)
        if state == "FAILED":
            raise RunError("run failed: %s (%s results in %s)"
                           % (message or "no reason given",
                              "partial" if status.steps < steps_to_reach(project.end_time,
                                                                         project.time_step)
                              else "the",
                              out))
        return out, summary
    except CORBA.SystemException as exc:
        raise RunError("lost the scheduler or a server: %s" % _orb.describe_exception(exc)) \
            from exc
    finally:
        if started and sched is not None:
            try:
                sched.stop()
            except Exception:  # noqa: BLE001 - best effort on the way out
                pass
        if viewer is not None:
            try:
                sched.setOnlineViewer(None)
            except Exception:  # noqa: BLE001 - best effort on the way out
                pass
            viewer.give_control(None)  # (a viewer that stays up must not pause the next run)
            viewer.close()
        controllers.stop()
        if servers is not None:
            servers.close()
        if not written:
            remove_unused_out_dir(out, made_out)


def remove_unused_out_dir(out, made):
    """After a run that failed before writing its results: remove the results marker, and the
    directory too if this run made it, when nothing else is in it (a controller's log or camera
    frames are kept, marker and all: the error names them)."""
    marker = Path(out) / RESULTS_MARKER
    try:
        if sorted(p.name for p in Path(out).iterdir()) != [RESULTS_MARKER]:
            return
        marker.unlink()
        if made:
            Path(out).rmdir()
    except OSError:
        pass
