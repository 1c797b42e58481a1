"""`hrpsim sweep SCRIPT_OR_SPEC`: a sweep from the command line, into a sweep directory.

SCRIPT is a Python file that defines ``run(sim, param)`` (the function swept: configures and
runs ``sim``, returns a dict of scalars) and ``PARAMS`` (a list of parameter dicts), and may
define ``SIM_OPTIONS`` (a dict for each ``hrpsim.Simulation``: ``dt``, ``gravity``...).
SPEC is a JSON file::

    {"script": "slope.py", "function": "run",
     "grid": {"mu": [0.0, 0.1, 0.2], "tilt": [0.0, 0.5]},     (or "params": [{...}, ...])
     "sim": {"dt": 0.001}, "plot": {"x": "mu", "y": "distance"}}

``script`` is relative to the spec; ``grid`` is the cartesian product, in key order with the
last key varying fastest. The script's source travels with each task (exec'd once per worker
process), so Dask workers on other hosts need hrpsim, not the file.

A sweep can branch from one settled state: when the script defines ``setup(sim)`` (the models,
pairs and extra joints every run shares) and ``SETTLE`` (seconds; or ``"settle"`` in a spec, or
``--settle SECONDS``), the command runs ``setup`` and the settling phase once, in this process,
saves the state, and every run starts from it (``hrpsim.sweep(..., setup=, state=)``): ``run``
then adds only what differs per run.
"""

import argparse
import hashlib
import itertools
import json
import sys
import time
import types
from pathlib import Path

EXAMPLE = """examples:
  hrpsim sweep samples/scripts/humanoid_sweep.py --plot height:waist_z   # process pool
  hrpsim sweep samples/scripts/humanoid_sweep.json --workers 2 --out sweeps/grid
  hrpsim sweep humanoid_sweep.py --dask tcp://scheduler-host:8786     # a Dask cluster
  hrpsim sweep humanoid_sweep.py --dask local --workers 2             # a LocalCluster here
  hrpsim sweep my_sweep.py --dask local --servers 1   # servers beside each worker
  hrpsim sweep push_sweep.py --settle 0.5   # setup(sim) + 0.5 s once, every run from there
"""

# per process: (filename, source digest) -> module namespace of an exec'd script
_loaded = {}


class ScriptFunction:
    """A picklable stand-in for function ``name`` of a script file: holds the source, execs
    it once per process on first call, then calls the function."""

    def __init__(self, source, filename, name):
        self.source = source
        self.filename = str(filename)
        self.name = name
        self.digest = hashlib.sha256(source.encode()).hexdigest()
        self.settle = None  # the settling time load() read (SETTLE, "settle"), or None

    def namespace(self):
        """The script's module namespace in this process (exec'd on first use)."""
        key = (self.filename, self.digest)
        if key not in _loaded:
            module = types.ModuleType("hrpsim_sweep_script_" + self.digest[:12])
            module.__file__ = self.filename
            sys.modules[module.__name__] = module  # functions defined there can pickle
            exec(compile(self.source, self.filename, "exec"), module.__dict__)
            _loaded[key] = module
        return _loaded[key]

    def __call__(self, sim, param):
        return getattr(self.namespace(), self.name)(sim, param)


class ScriptSetup(ScriptFunction):
    """A picklable stand-in for the script's ``setup(sim)`` (called with the simulation only)."""

    def __call__(self, sim):
        return getattr(self.namespace(), self.name)(sim)


def settled_state(func, settle, sim_options):
    """(setup, state): the script's ``setup`` run with ``settle`` seconds of simulation in this
    process (local back end), and the state saved there; (None, None) without ``settle``."""
    from ._orb import HrpsimError
    from .simulation import Simulation
    if settle is None:
        return None, None
    if not callable(getattr(func.namespace(), "setup", None)):
        raise HrpsimError("sweep: a settling phase needs setup(sim) in %s (the models every "
                          "run shares)" % func.filename)
    if not isinstance(settle, (int, float)) or settle < 0:
        raise HrpsimError("sweep: the settling time must be a number of seconds >= 0, got %r"
                          % (settle,))
    setup = ScriptSetup(func.source, func.filename, "setup")
    with Simulation(backend="local", **sim_options) as sim:
        setup(sim)
        sim.run(float(settle))
        return setup, sim.save_state()


def load(path, function=None):
    """(ScriptFunction, params, sim options, plot spec or None) of a script or JSON spec.
    The settling time (SETTLE or "settle", else None) is the function's ``settle``."""
    from ._orb import HrpsimError
    path = Path(path)
    if not path.is_file():
        raise HrpsimError("sweep: no such file: %s" % path)
    spec = {}
    script = path
    if path.suffix == ".json":
        try:
            spec = json.loads(path.read_text())
        except ValueError as exc:
            raise HrpsimError("sweep: %s: not valid JSON (%s)" % (path, exc)) from exc
        if not isinstance(spec, dict) or "script" not in spec:
            raise HrpsimError("sweep: %s: a spec is a JSON object with \"script\"" % path)
        script = (path.parent / spec["script"]).resolve()
        if not script.is_file():
            raise HrpsimError("sweep: %s: script %s not found" % (path, script))
    source = script.read_text()
    func = ScriptFunction(source, script.resolve(), function or spec.get("function", "run"))
    namespace = func.namespace()
    if not callable(getattr(namespace, func.name, None)):
        raise HrpsimError("sweep: %s defines no function %r" % (script, func.name))
    if "grid" in spec:
        grid = spec["grid"]
        keys = list(grid)
        params = [dict(zip(keys, values))
                  for values in itertools.product(*(grid[k] for k in keys))]
    elif "params" in spec:
        params = list(spec["params"])
    elif hasattr(namespace, "PARAMS"):
        params = list(namespace.PARAMS)
    else:
        raise HrpsimError("sweep: %s gives no parameters (PARAMS in the script, or \"params\" "
                          "or \"grid\" in a spec)" % path)
    sim_options = dict(getattr(namespace, "SIM_OPTIONS", {}) or {})
    sim_options.update(spec.get("sim", {}))
    func.settle = spec.get("settle", getattr(namespace, "SETTLE", None))
    return func, params, sim_options, spec.get("plot")


def add_parser(sub):
    """Register the `sweep` sub-command on the argparse sub-parsers ``sub``."""
    sp = sub.add_parser(
        "sweep", help="run a parameter sweep and write a sweep directory",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Run one simulation per parameter set of SCRIPT_OR_SPEC (a Python file "
                    "defining run(sim, param) and PARAMS, or a JSON spec naming the script "
                    "and the parameters), in parallel, with a progress bar. Writes the sweep "
                    "directory: index.csv and index.json (parameters, status, the scalars "
                    "each run returned) and runs/NNNN/ per run; prints the table. Exit "
                    "status 1 if a run failed.",
        epilog=EXAMPLE)
    sp.add_argument("spec", metavar="SCRIPT_OR_SPEC", help="sweep script (.py) or spec (.json)")
    sp.add_argument("--function", metavar="NAME", help="function to sweep (default run)")
    sp.add_argument("--out", metavar="DIR",
                    help="sweep directory (default sweeps/<name>-<timestamp>)")
    sp.add_argument("--workers", metavar="N", type=int, default=None,
                    help="worker processes (default: the number of CPUs)")
    sp.add_argument("--backend", choices=("local", "server"), default="local",
                    help="local: in-process simulations (default); server: the dynamics "
                         "servers ($HRPSIM_NAMING or `hrpsim up`'s, or each Dask worker's)")
    sp.add_argument("--dask", metavar="ADDRESS",
                    help="run on a Dask cluster: its scheduler's address, or 'local' for a "
                         "LocalCluster of --workers processes")
    sp.add_argument("--servers", metavar="N", type=int, default=None,
                    help="with --dask: start `hrpsim up --dynamics N` beside every worker "
                         "(hrpsim.dask.HrpsimPlugin); implies --backend server")
    sp.add_argument("--settle", metavar="SECONDS", type=float, default=None,
                    help="run the script's setup(sim) and SECONDS of simulation once, save "
                         "the state, start every run from it (default: the script's SETTLE)")
    sp.add_argument("--plot", metavar="X:Y", help="also plot column Y against X to plot.png")
    sp.add_argument("--no-progress", action="store_true", help="no progress bar")
    sp.set_defaults(func=cmd_sweep)
    return sp


def cmd_sweep(args):
    """Run the sweep of ``args`` (see add_parser); returns the exit status."""
    from .sweep import sweep, sweep_plot
    from ._orb import HrpsimError

    func, params, sim_options, plot = load(args.spec, args.function)
    if args.plot:
        x, sep, y = args.plot.partition(":")
        if not sep or not x or not y:
            raise HrpsimError("sweep: --plot takes X:Y (two column names)")
        plot = {"x": x, "y": y}
    out = Path(args.out or Path("sweeps") / ("%s-%s" % (Path(args.spec).stem,
                                                           time.strftime("%Y%m%d-%H%M%S"))))
    backend = "server" if args.servers else args.backend
    settle = args.settle if args.settle is not None else func.settle
    setup, state = settled_state(func, settle, sim_options)
    if state is not None:
        print("settled: %s" % (state,))
    client = cluster = None
    try:
        if args.dask:
            from distributed import Client, LocalCluster
            if args.dask == "local":
                import dask
                # the workers' profiler samples each task's stack: ~30 % more CPU per run
                with dask.config.set({"distributed.worker.profile.enabled": False}):
                    cluster = LocalCluster(n_workers=args.workers or 2, threads_per_worker=1,
                                           processes=True, dashboard_address=":0")
                client = Client(cluster)
            else:
                client = Client(args.dask)
            if args.servers:
                from .dask import HrpsimPlugin
                client.register_plugin(HrpsimPlugin(dynamics=args.servers))
        elif args.servers:
            raise HrpsimError("sweep: --servers needs --dask")
        started = time.monotonic()
        table = sweep(func, params, args.workers, executor=client, backend=backend,
                      table=True, out_dir=out, progress=not args.no_progress,
                      setup=setup, state=state, **sim_options)
        elapsed = time.monotonic() - started
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
    rows = table.to_dict("records") if hasattr(table, "to_dict") else table
    _print_rows(rows)
    failed = sum(1 for r in rows if r["status"] != "ok")
    if plot:
        from .errors import BadArgument
        try:
            print("plot: %s" % sweep_plot(table, plot["x"], plot["y"], out / "plot.png"))
        except BadArgument as exc:   # every run failed, or no such column: say why, go on
            print("plot: none: %s" % exc, file=sys.stderr)
    print("%d runs (%d failed) in %.1f s; index: %s" % (len(rows), failed, elapsed,
                                                      out / "index.csv"))
    return 1 if failed else 0


def _print_rows(rows, limit=40):
    if not rows:
        return
    columns = [c for c in rows[0] if c != "error"]
    text = [[_cell(r.get(c)) for c in columns] for r in rows[:limit]]
    widths = [max(len(c), *(len(t[i]) for t in text)) for i, c in enumerate(columns)]
    print("  ".join(c.rjust(w) for c, w in zip(columns, widths)))
    for t in text:
        print("  ".join(v.rjust(w) for v, w in zip(t, widths)))
    if len(rows) > limit:
        print("... %d more rows in the index" % (len(rows) - limit))


def _cell(v):
    if isinstance(v, float):
        return "%.6g" % v
    return "" if v is None else str(v)
