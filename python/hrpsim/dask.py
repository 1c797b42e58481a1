"""hrpsim on a Dask cluster: ``hrpsim.sweep(func, params, executor=client)`` with a Dask
``distributed.Client``, and ``HrpsimPlugin``, which gives each Dask worker its own servers.

A sweep task runs the local back end by default: nothing needs to run on a worker but Python
with hrpsim installed. A task that needs servers (``backend="server"``: external controllers,
OpenHRP clients) runs on the servers that ``HrpsimPlugin`` starts beside its worker::

    from distributed import Client
    import hrpsim, hrpsim.dask

    client = Client("tcp://scheduler-host:8786")       # or Client(LocalCluster(...))
    client.register_plugin(hrpsim.dask.HrpsimPlugin(dynamics=1))
    results = hrpsim.sweep(func, params, executor=client, backend="server")

When a worker joins, the plugin runs ``hrpsim up`` (``launcher.up``) in a private state
directory on the worker's host and points the worker's tasks at it ($HRPSIM_NAMING in the
worker process); when the worker leaves it runs ``hrpsim down``. A watchdog process (reading
a pipe from the worker) stops the servers too if the worker dies without leaving (SIGKILL, a
crash), so no server outlives its worker. Servers listen on 127.0.0.1 by default: tasks and
servers are on the same host, only parameters and results cross the network.

Needs the optional extra ``hrpsim[dask]`` (PyPI ``dask`` and ``distributed``).
"""

import os
import shutil
import subprocess
import sys
import tempfile

from distributed.diagnostics.plugin import WorkerPlugin

from . import launcher

__all__ = ["HrpsimPlugin", "worker_servers"]


class HrpsimPlugin(WorkerPlugin):
    """A Dask worker plugin: ``hrpsim up --dynamics N`` on the worker's host while the worker
    lives. ``dynamics``: number of hrpsim-dynamics processes; ``only``: the servers to start
    (None: every server built, as `hrpsim up`); ``listen``, ``model_roots``: as `hrpsim up
    --listen --model-root`; ``timeout``: seconds each server may take to start; ``state_root``:
    where the private state directories are made (default the system's temporary directory).
    """

    name = "hrpsim-servers"

    def __init__(self, dynamics=1, only=None, listen=None, model_roots=(), timeout=30.0,
                 state_root=None):
        self.dynamics = int(dynamics)
        self.only = None if only is None else list(only)
        self.listen = listen
        self.model_roots = tuple(str(r) for r in model_roots)
        self.timeout = float(timeout)
        self.state_root = state_root
        self.state_dir = None
        self._watchdog = None

    def setup(self, worker=None):
        """Start the servers (the worker is joining); raises launcher.LaunchError if they do
        not start."""
        self.state_dir = tempfile.mkdtemp(prefix="hrpsim-dask-", dir=self.state_root)
        state = launcher.up(state_dir=self.state_dir, dynamics=self.dynamics, only=self.only,
                            listen=self.listen, model_roots=self.model_roots,
                            timeout=self.timeout)
        # the watchdog stops the servers when this process goes, however it goes
        self._watchdog = subprocess.Popen(
            [sys.executable, "-m", "hrpsim._watchdog", self.state_dir],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, start_new_session=True,
            env=_child_env())
        os.environ["HRPSIM_NAMING"] = state["naming"]
        os.environ["HRPSIM_STATE_DIR"] = self.state_dir

    def teardown(self, worker=None):
        """Stop the servers (the worker is leaving) and remove the state directory."""
        if self.state_dir is None:
            return
        try:
            launcher.down(self.state_dir)
        finally:
            if self._watchdog is not None:
                self._watchdog.stdin.close()
                try:
                    self._watchdog.wait(30)
                except subprocess.TimeoutExpired:
                    self._watchdog.kill()
                    self._watchdog.wait()
                self._watchdog = None
            shutil.rmtree(self.state_dir, ignore_errors=True)
            for key in ("HRPSIM_NAMING", "HRPSIM_STATE_DIR"):
                os.environ.pop(key, None)
            self.state_dir = None


def _child_env():
    """The environment for the watchdog: this hrpsim importable (an editable checkout too)."""
    env = dict(os.environ)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = os.pathsep.join([here] + ([env["PYTHONPATH"]]
                                                  if env.get("PYTHONPATH") else []))
    return env


def _worker_state():
    from . import launcher as _launcher
    state_dir = os.environ.get("HRPSIM_STATE_DIR")
    if not state_dir or not os.environ.get("HRPSIM_NAMING"):
        return None
    return _launcher.read_state(state_dir)


def worker_servers(client):
    """{worker address: `hrpsim up` state (naming, processes with their PIDs) or None} of the
    servers HrpsimPlugin started beside each worker of ``client``."""
    return client.run(_worker_state)
