"""Fixtures for the end-to-end tests: real omniNames and real servers, started with `hrpsim up`.

- ``repo_root``, ``samples_dir``: where the sources and sample models are.
- ``hrpsim_cli``: runs the `hrpsim` command (``python -m hrpsim.cli``) and returns the
  CompletedProcess (text output captured).
- ``servers``: one set of servers for the whole session, started with
  ``hrpsim up --state-dir <tmp>``; yields a ServerSet (state dir, corbaloc, state, connected
  Client). At the end it runs ``hrpsim down`` and asserts that no process it started is left.
- ``state_dirs``: a factory of fresh state directories for tests that run `up` themselves;
  whatever is still running in them is stopped (and checked gone) after the test.

Nothing here skips: if the build outputs (IDL stubs, server executables, omniNames) are
missing the fixtures fail with a message saying what to build. The repository's python/
directory is put on sys.path, so the tests work without `pip install`.
"""

import contextlib
import dataclasses
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
PYTHON_DIR = REPO_ROOT / "python"
if str(PYTHON_DIR) not in sys.path:
    sys.path.insert(0, str(PYTHON_DIR))

import hrpsim  # noqa: E402
from hrpsim import launcher, paths  # noqa: E402

def _asan_in_process():
    """test.sh's sanitizer stage starts pytest with the ASan runtime preloaded (LD_PRELOAD), the
    local back end's ASan extension in HRPSIM_CORE_MODULE_DIR (build-asan/python), leak checks
    off for this process (CPython leaves blocks unfreed at exit) and the servers' ASAN_OPTIONS
    in HRPSIM_E2E_CHILD_ASAN_OPTIONS. Load the extension here, check it is that one, then give
    every child the servers' options and no preload: the ASan servers bring their own runtime,
    other programs (omniNames, child Pythons, which use build/python's extension) run as in the
    normal stage."""
    child_options = os.environ.pop("HRPSIM_E2E_CHILD_ASAN_OPTIONS", None)
    if child_options is None:
        return
    from hrpsim import local

    want = os.environ.get("HRPSIM_CORE_MODULE_DIR", "")
    path = local.core_module().__file__
    os.environ.pop("HRPSIM_CORE_MODULE_DIR", None)
    if not want or not path.startswith(os.path.join(want, "")):
        raise RuntimeError("the sanitizer stage loaded %s, not the ASan extension of %r"
                           % (path, want))
    os.environ["ASAN_OPTIONS"] = child_options
    os.environ.pop("LD_PRELOAD", None)


_asan_in_process()

# servers may start slowly under sanitizers or a loaded machine
UP_TIMEOUT_S = os.environ.get("HRPSIM_E2E_UP_TIMEOUT", "30")


def cli_env():
    """Environment for `hrpsim` subprocesses: our python/ first, no inherited HRPSIM_NAMING."""
    env = dict(os.environ)
    env.pop("HRPSIM_NAMING", None)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(PYTHON_DIR)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


def run_cli(*args, timeout=180, env=None):
    """Run ``hrpsim ARGS...`` and return the CompletedProcess (stdout/stderr as text)."""
    return subprocess.run([sys.executable, "-m", "hrpsim.cli"] + [str(a) for a in args],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=timeout, env=env or cli_env(), cwd=str(REPO_ROOT))


def describe(proc):
    """Exit status and output of a CompletedProcess, for assertion messages."""
    return "exit %s\n--- stdout ---\n%s--- stderr ---\n%s" % (
        proc.returncode, proc.stdout, proc.stderr)


def assert_same(a, b, where="snapshot"):
    """Two snapshots (nested dicts / lists of arrays) equal bit for bit: same keys, lengths,
    shapes and dtypes, and every number equal."""
    import numpy as np
    if isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            assert_same(a[k], b[k], "%s[%r]" % (where, k))
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, "%s[%d]" % (where, i))
    else:
        x, y = np.asarray(a), np.asarray(b)
        assert x.shape == y.shape and x.dtype == y.dtype, where
        assert np.array_equal(x, y), "%s differs: max |diff| %g" % (
            where, float(np.max(np.abs(x - y))) if x.size else 0.0)


def missing_build_outputs(required_servers=("ModelLoader",)):
    """What is missing for the e2e tests to run, as a list of human-readable lines."""
    missing = []
    if not os.access(paths.omninames_exe(), os.X_OK):
        missing.append("naming service %s (Debian package omniorb-nameserver)"
                       % paths.omninames_exe())
    try:
        hrpsim.OpenHRP  # noqa: B018 - imports the generated stubs
    except ImportError as exc:
        missing.append("Python IDL stubs: %s" % exc)
    bin_dir = paths.default_bin_dir()
    exes = dict(paths.SERVERS)
    for name in required_servers:
        exe = bin_dir / exes[name]
        if not os.access(exe, os.X_OK):
            missing.append("%s server executable %s" % (name, exe))
    return missing


def require_build(required_servers=("ModelLoader",)):
    """Fail the calling test (never skip) if build outputs are missing."""
    missing = missing_build_outputs(required_servers)
    if missing:
        pytest.fail("hrpsim e2e tests need the build outputs; missing:\n  - %s\nBuild with: "
                    "cmake -S %s -B %s/build && cmake --build %s/build (or point "
                    "HRPSIM_BIN_DIR at the servers)" % ("\n  - ".join(missing), REPO_ROOT,
                                                        REPO_ROOT, REPO_ROOT), pytrace=False)


def still_running(state):
    """The processes recorded in ``state`` that are still alive (zombies count as gone)."""
    return [r for r in (state or {}).get("processes", []) if launcher.is_ours(r)]


@dataclasses.dataclass
class ServerSet:
    """A running set of servers: where its state is and how to reach it."""

    state_dir: Path
    corbaloc: str
    state: dict
    client: "hrpsim.Client"

    @property
    def processes(self):
        """Recorded process records (dicts with name, kind, pid, start_time, cmdline, ...)."""
        return self.state["processes"]

    def pid(self, name):
        """PID of the recorded process ``name`` (e.g. "ModelLoader", "NameService")."""
        return next(r["pid"] for r in self.processes if r["name"] == name)

    def has(self, name):
        """True if server ``name`` was started (its executable was built)."""
        return any(r["name"] == name for r in self.processes)


def start_servers(state_dir, *extra_args):
    """``hrpsim up --state-dir state_dir`` or fail the test with its output."""
    proc = run_cli("up", "--state-dir", state_dir, "--timeout", UP_TIMEOUT_S, *extra_args)
    if proc.returncode != 0:
        pytest.fail("hrpsim up failed:\n" + describe(proc), pytrace=False)
    return proc


def stop_servers(state_dir):
    """``hrpsim down`` for ``state_dir``; assert it succeeds and leaves nothing running."""
    try:
        state = launcher.read_state(state_dir)
    except launcher.LaunchError:
        state = None
    proc = run_cli("down", "--state-dir", state_dir)
    assert proc.returncode == 0, "hrpsim down failed:\n" + describe(proc)
    left = still_running(state)
    assert not left, "processes left running after hrpsim down: %s" % [
        (r["name"], r["pid"]) for r in left]
    return proc


def dynamics_exe(servers):
    """The hrpsim-dynamics executable the ``servers`` fixture started."""
    return next(Path(r["exe"]) for r in servers.processes if r["name"] ==
                "DynamicsSimulatorFactory")


@contextlib.contextmanager
def own_dynamics_server(servers, tmp_path, index, *options):
    """hrpsim-dynamics started with ``options``, bound in its own naming context (as `hrpsim
    up` binds extra dynamics servers) and as DynamicsSimulatorFactory<index> in the root;
    yields that name, then stops the server (by its process group) and unbinds both. Its
    naming context (launcher._dynamics_context) serves OpenHRP's clients that resolve
    "DynamicsSimulatorFactory" from their NameService (bind a ModelLoader there too)."""
    from hrpsim import _orb
    client = servers.client
    ctx = launcher._dynamics_context(client.root, index)
    ior = _orb.get_orb().object_to_string(ctx)
    log_path = tmp_path / ("dyn%d.log" % index)
    with open(log_path, "w") as log:
        proc = subprocess.Popen([str(dynamics_exe(servers)), "-ORBInitRef",
                                 "NameService=" + ior, *options],
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    name = "DynamicsSimulatorFactory%d" % index
    try:
        factory = None
        for _ in range(200):
            try:
                factory = ctx.resolve(_orb.to_name("DynamicsSimulatorFactory"))
                break
            except Exception:  # not bound yet
                time.sleep(0.05)
        assert factory is not None, log_path.read_text()
        client.root.rebind(_orb.to_name(name), factory)
        yield name
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
        for bound in (name, "hrpsim-dynamics-%d" % index):
            try:
                client.root.unbind(_orb.to_name(bound))
            except Exception:  # already gone
                pass


@pytest.fixture(scope="session", autouse=True)
def _orb_call_timeout():
    """A server that stops answering fails the test after 2 minutes instead of hanging it."""
    hrpsim._orb.get_orb(("-ORBclientCallTimeOutPeriod", "120000"))


@pytest.fixture(scope="session")
def repo_root():
    """The repository root."""
    return REPO_ROOT


@pytest.fixture(scope="session")
def samples_dir():
    """``<repo>/samples``."""
    return REPO_ROOT / "samples"


@pytest.fixture(scope="session")
def hrpsim_cli():
    """A function running the `hrpsim` command: ``hrpsim_cli("status", "--state-dir", d)``."""
    return run_cli


@pytest.fixture(scope="session")
def built():
    """Fails (does not skip) unless omniNames, the stubs and the ModelLoader server exist."""
    require_build()
    return paths.default_bin_dir()


@pytest.fixture(scope="session")
def servers(built, tmp_path_factory):
    """A ServerSet shared by the session; stopped (and checked gone) at the end."""
    state_dir = tmp_path_factory.mktemp("hrpsim-state")
    start_servers(state_dir)
    try:
        state = launcher.read_state(state_dir)
        client = hrpsim.connect(state["naming"])
        yield ServerSet(state_dir=state_dir, corbaloc=state["naming"], state=state,
                        client=client)
    finally:
        stop_servers(state_dir)


@pytest.fixture
def state_dirs(tmp_path_factory):
    """Factory of fresh state dirs; anything still running in them is stopped afterwards."""
    made = []

    def make(label="state"):
        d = tmp_path_factory.mktemp("hrpsim-" + label)
        made.append(d)
        return d

    yield make
    for d in made:
        stop_servers(d)


def pytest_configure(config):
    """Register the stage markers of stages.py."""
    config.addinivalue_line("markers", "native: drives C/C++ code; test.sh's sanitizer stage "
                            "runs these again (tests/e2e/stages.py)")
    config.addinivalue_line("markers", "python: Python-level logic; run in test.sh's normal "
                            "stage only (tests/e2e/stages.py)")


def pytest_collection_modifyitems(config, items):
    """Mark every test ``native`` or ``python`` from stages.py; an unlisted file is an error."""
    import stages

    unlisted = set()
    for item in items:
        path = Path(str(item.fspath))
        if path.parent != Path(__file__).resolve().parent:
            continue
        name = path.name
        try:
            item.add_marker(stages.group(name))
        except KeyError:
            unlisted.add(name)
    if unlisted:
        raise pytest.UsageError(
            "e2e files missing from tests/e2e/stages.py (put each in NATIVE or PYTHON, with "
            "its reason): %s" % ", ".join(sorted(unlisted)))
