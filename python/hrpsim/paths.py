"""Where hrpsim finds things: the repository, the server executables, the state directory.

Everything here is a plain function of the environment so that the command line, the
Python API and the tests agree on the same defaults:

- the repository is two levels above this package (``<repo>/python/hrpsim``);
- server executables live in ``$HRPSIM_BIN_DIR`` or ``<repo>/build/bin``;
- ``hrpsim up`` keeps its state in ``$HRPSIM_STATE_DIR`` or ``~/.hrpsim/default``;
- the naming service is Debian's ``/usr/bin/omniNames`` (``$HRPSIM_OMNINAMES`` overrides).
"""

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_ROOT = PACKAGE_DIR.parents[1]

# Servers that `hrpsim up` knows, in start order: (name bound in the naming service,
# executable in the bin dir). Each binds its own name (empty kind) in the root context.
SERVERS = (
    ("ModelLoader", "hrpsim-modelloader"),
    ("DynamicsSimulatorFactory", "hrpsim-dynamics"),
    ("CollisionDetectorFactory", "hrpsim-collision"),
    ("ViewSimulatorFactory", "hrpsim-view"),
    ("Scheduler", "hrpsim-scheduler"),
)

# the OnlineViewer server is a Python process (python -m hrpsim.viewer), started by
# `hrpsim up --viewer` after the executables above
VIEWER = "OnlineViewer"

STATE_FILE = "state.json"

# `hrpsim up --dynamics N` starts N hrpsim-dynamics processes: the first bound as
# DYNAMICS_FACTORY, the others as DYNAMICS_FACTORY + "1" ... + "N-1" (hrpsim.sweep spreads its
# runs over them).
DYNAMICS_FACTORY = "DynamicsSimulatorFactory"


def dynamics_factory_name(index):
    """Naming-service name of the ``index``-th dynamics server (0: DynamicsSimulatorFactory,
    k > 0: DynamicsSimulatorFactory<k>)."""
    return DYNAMICS_FACTORY + (str(index) if index else "")


def dynamics_factory_index(name):
    """The index of a dynamics server name (inverse of dynamics_factory_name), or None."""
    if name == DYNAMICS_FACTORY:
        return 0
    rest = name[len(DYNAMICS_FACTORY):] if name.startswith(DYNAMICS_FACTORY) else ""
    if rest.isdigit() and not rest.startswith("0"):
        return int(rest)
    return None


def repo_root():
    """The hrpsim source tree this package belongs to."""
    return REPO_ROOT


def samples_dir():
    """``<repo>/samples``: models, projects, controllers and scripts."""
    return REPO_ROOT / "samples"


def default_bin_dir():
    """Directory of the server executables: ``$HRPSIM_BIN_DIR`` or ``<repo>/build/bin``."""
    env = os.environ.get("HRPSIM_BIN_DIR")
    return Path(env).expanduser() if env else REPO_ROOT / "build" / "bin"


def default_state_dir():
    """State directory of ``hrpsim up``: ``$HRPSIM_STATE_DIR`` or ``~/.hrpsim/default``."""
    env = os.environ.get("HRPSIM_STATE_DIR")
    return Path(env).expanduser() if env else Path.home() / ".hrpsim" / "default"


def omninames_exe():
    """The naming service executable: ``$HRPSIM_OMNINAMES`` or ``/usr/bin/omniNames``."""
    return Path(os.environ.get("HRPSIM_OMNINAMES", "/usr/bin/omniNames"))


# where servers listen unless told otherwise
LOOPBACK = "127.0.0.1"


def is_exposed(host):
    """True if servers listening on ``host`` are reachable beyond this machine's default
    loopback address: anything but 127.0.0.1, ::1 and localhost counts (another loopback
    alias such as 127.0.0.2 too, so that exposure can be tested on one machine). The servers
    apply the same rule to their endpoints (server/common/runtime.h)."""
    return host.strip("[]").lower() not in ("127.0.0.1", "::1", "localhost")


def endpoint_host(host):
    """``host`` as it goes into an omniORB endpoint or a corbaloc URL (IPv6 in brackets)."""
    host = host.strip("[]")
    return "[%s]" % host if ":" in host else host


def corbaloc_for_port(port, host=LOOPBACK):
    """The corbaloc URL of a naming service listening on ``host:port``."""
    return "corbaloc:iiop:%s:%d/NameService" % (endpoint_host(host), port)
