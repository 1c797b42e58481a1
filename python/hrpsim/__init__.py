"""hrpsim: Python client for the hrpsim CORBA servers (OpenHRP 3.1 compatible).

Typical use, after ``hrpsim up``::

    import hrpsim
    from hrpsim import OpenHRP

    client = hrpsim.connect()                      # HRPSIM_NAMING or hrpsim up's state
    body = client.load_body("samples/models/humanoid/humanoid.wrl")
    print(hrpsim.body_summary(body)["total_mass"])
    sim = client.dynamics_simulator()              # a new DynamicsSimulator (one world)

``hrpsim.OpenHRP`` and ``hrpsim.OpenHRP__POA`` are the omniORBpy stubs generated from
``idl/`` by the build into ``hrpsim._idl``; ``hrpsim.SchedulerIDL`` (``SchedulerIDL__POA``)
are those of hrpsim's own scheduler interface (IDL module ``hrpsim``). They are imported on
first use.

Scripting (see docs/python.md): ``hrpsim.Simulation`` configures, steps and
reads one simulation, client-driven or through the scheduler server; ``hrpsim.sweep(func,
params, workers=N)`` runs ``func(sim, param)`` for many parameters in parallel over the
dynamics servers of ``hrpsim up --dynamics N``, or over any executor (a Dask cluster:
``hrpsim.dask``), optionally as a table (``table=True``, ``sweep_plot``).
"""

import importlib
import os
from pathlib import Path

from . import _orb
from . import paths
from ._orb import HrpsimError
from .errors import ServerError
from .summary import body_summary, format_summary, read_body
# imported here, so the function `hrpsim.sweep` always shadows the module of the same name
from .sweep import dynamics_factories, sweep, sweep_plot, sweep_run_dir, sweep_table

__version__ = "0.1.0"

__all__ = ["connect", "Client", "body_summary", "format_summary", "read_body", "file_url",
           "naming_from_environment", "HrpsimError", "ServerUnavailable", "NameNotBound",
           "WrongInterface", "ServerError", "OpenHRP", "OpenHRP__POA", "SchedulerIDL",
           "SchedulerIDL__POA", "Simulation", "Runaway", "State", "sweep", "sweep_table",
           "sweep_plot", "sweep_run_dir", "dynamics_factories", "__version__"]

# attribute -> module under hrpsim._idl (hrpsim's own IDL module is also named "hrpsim")
_STUB_MODULES = {"OpenHRP": "OpenHRP", "OpenHRP__POA": "OpenHRP__POA", "OpenRTM": "OpenRTM",
                 "OpenRTM__POA": "OpenRTM__POA", "SchedulerIDL": "hrpsim",
                 "SchedulerIDL__POA": "hrpsim__POA"}
# attribute -> (module, name): imported on first use (Simulation needs numpy)
_LAZY = {"Simulation": ("simulation", "Simulation"), "Runaway": ("simulation", "Runaway"),
         "State": ("state", "State")}


def _import_stubs(name):
    try:
        return importlib.import_module("hrpsim._idl." + name)
    except ModuleNotFoundError as exc:
        if exc.name and (exc.name == "hrpsim._idl" or exc.name.startswith("hrpsim._idl.")):
            raise ImportError(
                "hrpsim: IDL stubs missing (%s not found in %s); run the build: "
                "cmake -S %s -B %s/build && cmake --build %s/build (it generates "
                "python/hrpsim/_idl)" % (exc.name, paths.PACKAGE_DIR / "_idl", paths.REPO_ROOT,
                                         paths.REPO_ROOT, paths.REPO_ROOT)) from exc
        if exc.name in ("omniORB", "CORBA", "PortableServer", "CosNaming"):
            raise ImportError("hrpsim needs omniORBpy: pip install jeteve-omniorb") from exc
        raise


def __getattr__(name):
    # PEP 562: import the generated stubs lazily, so `import hrpsim` works without a build
    if name in _STUB_MODULES:
        module = _import_stubs(_STUB_MODULES[name])
        globals()[name] = module
        return module
    if name in _LAZY:
        module_name, attr = _LAZY[name]
        value = getattr(importlib.import_module("hrpsim." + module_name), attr)
        globals()[name] = value
        return value
    raise AttributeError("module 'hrpsim' has no attribute %r" % name)


class ServerUnavailable(HrpsimError):
    """A name is bound in the naming service but the object behind it does not answer."""


class NameNotBound(HrpsimError, LookupError):
    """Nothing is bound under the name asked for (a LookupError)."""


class WrongInterface(HrpsimError, TypeError):
    """The object bound under a name does not implement the interface asked for."""


def file_url(path_or_url):
    """A ``file://`` URL for a local path (made absolute); URLs (and primitive URLs,
    ``hrpsim.primitives``) are returned unchanged."""
    text = os.fspath(path_or_url)
    if "://" in text or text.startswith("hrpsim-primitive:"):
        return text
    return "file://" + str(Path(text).expanduser().resolve())


def naming_from_environment(state_dir=None):
    """The naming service to use: ``$HRPSIM_NAMING``, else the corbaloc recorded by
    ``hrpsim up`` in ``state_dir`` (default state dir). When ``state_dir`` is given it wins
    over the environment. Raises HrpsimError if neither is available.
    """
    if state_dir is None:
        env = os.environ.get("HRPSIM_NAMING")
        if env:
            return env
    from .launcher import StateDir
    sd = StateDir(state_dir)
    state = sd.load()
    if state is None or not state.get("naming"):
        raise HrpsimError(
            "no naming service: pass one (connect(naming=...) / --naming), set HRPSIM_NAMING, "
            "or start the servers with `hrpsim up` (no state in %s)" % sd.path)
    return state["naming"]


def connect(naming=None, orb_args=(), state_dir=None, listen=None):
    """Connect to a naming service and return a Client.

    ``naming`` is a corbaloc URL (``corbaloc:iiop:127.0.0.1:PORT/NameService``) or an IOR;
    if None it comes from ``$HRPSIM_NAMING``, else from ``hrpsim up``'s state file in
    ``state_dir`` (default ``$HRPSIM_STATE_DIR`` or ``~/.hrpsim/default``). The ORB is
    initialised once per process, with ``-ORBInitRef NameService=<naming>`` and the given
    extra omniORB options (``orb_args``; only the first call's options take effect).
    Raises HrpsimError if no naming service is known or it does not answer.

    A client on another host than the servers passes the naming service's corbaloc
    (``corbaloc:iiop:HOST:PORT/NameService`` of ``hrpsim up --listen HOST``); calls then go to
    the addresses the servers publish, HOST. A process that also serves objects the servers
    call back (controllers, execution contexts) must publish an address of its own host that
    the servers' host can reach: ``listen`` (or ``$HRPSIM_LISTEN``; default 127.0.0.1, which
    only a server on the same host reaches) becomes ``-ORBendPoint giop:tcp:LISTEN:``.
    """
    naming = naming or naming_from_environment(state_dir)
    if listen:
        host = listen.strip("[]")
        orb_args = tuple(orb_args) + (
            "-ORBendPoint", "giop:tcp:%s:" % ("[%s]" % host if ":" in host else host))
    orb = _orb.get_orb(orb_args, naming)
    return Client(orb, naming)


class Client:
    """A connection to one naming service and the hrpsim servers bound in it.

    Attributes: ``orb`` (the process's ORB), ``naming`` (the corbaloc / IOR used) and
    ``root`` (the root CosNaming.NamingContext).
    """

    def __init__(self, orb, naming):
        self.orb = orb
        self.naming = naming
        self.root = _orb.naming_context(naming)

    def __repr__(self):
        return "<hrpsim.Client naming=%s>" % self.naming

    def names(self):
        """Names bound in the root context (``"id"`` or ``"id.kind"``)."""
        return _orb.bound_names(self.root)

    def resolve(self, name, interface=None):
        """The object bound to ``name`` (``"A"`` or ``"ctx/A"``, empty kinds).

        With ``interface`` (a stub class such as ``OpenHRP.ModelLoader``) the reference is
        narrowed to it. Raises NameNotBound (a LookupError) if nothing is bound under
        ``name``, ServerUnavailable if the object does not answer, WrongInterface (a
        TypeError) if it is not an ``interface``.
        """
        CORBA, _ = _orb.corba()
        obj = _orb.resolve_name(self.root, name)
        if obj is None:
            raise NameNotBound("%r is not bound in the naming service %s (is its server "
                               "running? see `hrpsim status`)" % (name, self.naming))
        if interface is None:
            return obj
        try:
            narrowed = obj._narrow(interface)
        except (CORBA.TRANSIENT, CORBA.COMM_FAILURE, CORBA.OBJECT_NOT_EXIST) as exc:
            raise ServerUnavailable("%r is bound in %s but its server does not answer (%s)"
                                    % (name, self.naming, _orb.describe_exception(exc))) from exc
        if narrowed is None:
            repo_id = getattr(interface, "_NP_RepositoryId", interface)
            raise WrongInterface("%r is not a %s" % (name, repo_id))
        return narrowed

    def model_loader(self):
        """The ``ModelLoader`` server, narrowed to OpenHRP.ModelLoader."""
        from hrpsim import OpenHRP
        return self.resolve("ModelLoader", OpenHRP.ModelLoader)

    def dynamics_factory(self):
        """The ``DynamicsSimulatorFactory`` server, narrowed to
        OpenHRP.DynamicsSimulatorFactory."""
        from hrpsim import OpenHRP
        return self.resolve("DynamicsSimulatorFactory", OpenHRP.DynamicsSimulatorFactory)

    def dynamics_simulator(self):
        """A new, independent OpenHRP.DynamicsSimulator (one physics world) from the factory.

        Each call makes a new world on the server; release it with its ``destroy()`` when
        done. A plain reference, as OpenHRP clients expect: bad arguments raise CORBA.BAD_PARAM,
        calls out of order CORBA.BAD_INV_ORDER (the server logs why);
        ``hrpsim.errors.explained(ref)`` makes them raise with the server's reason instead, as
        ``hrpsim.Simulation`` does. See docs/servers.md, "DynamicsSimulator".
        """
        return self.dynamics_factory().create()

    def collision_factory(self):
        """The ``CollisionDetectorFactory`` server, narrowed to
        OpenHRP.CollisionDetectorFactory."""
        from hrpsim import OpenHRP
        return self.resolve("CollisionDetectorFactory", OpenHRP.CollisionDetectorFactory)

    def collision_detector(self):
        """A new, independent CollisionDetector from the factory, wrapped so that a request
        the server refuses raises ``hrpsim.errors.BadArgument`` (a ValueError and LookupError)
        and the like with the server's reason (``hrpsim.errors``; ``hrpsim.errors.unwrap``
        gives the plain OpenHRP.CollisionDetector). Release it with its ``destroy()``."""
        from .errors import explained
        return explained(self.collision_factory().create())

    def load_body(self, url, reload=True):
        """Load a model through the ModelLoader and return its BodyInfo reference.

        ``url`` is a path (made absolute) or a ``file://`` URL. ``reload=True`` calls
        ``loadBodyInfo`` (always reads the file); ``reload=False`` calls ``getBodyInfo``
        (may return the server's cached body). A model that does not load raises
        ``hrpsim.errors.ModelError`` ("file:line:column: problem"; ``ModelFileNotFound`` for
        a missing file), as on every back end of hrpsim.Simulation, chained to the
        ModelLoader's ``OpenHRP.ModelLoader.ModelLoaderException``.
        """
        from hrpsim import OpenHRP
        from .errors import model_error
        loader = self.model_loader()
        url = file_url(url)
        try:
            return loader.loadBodyInfo(url) if reload else loader.getBodyInfo(url)
        except OpenHRP.ModelLoader.ModelLoaderException as exc:
            raise model_error(exc.description) from exc
