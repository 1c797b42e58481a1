"""hrpsim.sweep: run one simulation per parameter, in parallel worker processes.

By default (``backend="local"``) each worker process runs its simulations in process on the
local back end (``hrpsim.Simulation(backend="local")``, the simulation core inside Python): no
naming service, no servers to start; ``workers`` defaults to the number of CPUs. The core
computes the same numbers in every process, so a sweep returns exactly what the runs done one
by one return (``run_serial``).

With ``backend="server"`` (the default when ``naming``, ``factories`` or ``state_dir`` is
given) the runs go to dynamics servers instead. One hrpsim-dynamics process steps several
clients' worlds at once, but one Python process drives one server's CORBA calls in turn, so
spread them over several server processes: ``hrpsim up --dynamics N`` starts N of them, bound as
DynamicsSimulatorFactory, DynamicsSimulatorFactory1, ..., DynamicsSimulatorFactory<N-1>.
``sweep`` starts ``workers`` Python processes ('spawn': a fresh interpreter and its own omniORB
ORB each); worker i makes its simulations on factory i mod N, so with fewer servers than
workers some workers share a server (and its CPU).

Each parameter gets a fresh ``hrpsim.Simulation`` (local, or client-driven on the worker's
factory); ``func(sim, param)`` configures it, runs it and returns a picklable result; the
Simulation is closed afterwards. Results come back in parameter order. A server steps the same
calls to the same numbers whichever process it is, so a sweep returns exactly what the runs
done one by one return.

Any ``concurrent.futures.Executor`` can run the tasks instead (``executor=``), in particular a
Dask ``distributed.Client`` (``hrpsim.dask``): a task then runs where the executor puts it, on
the local back end by default, or (``backend="server"``) on the servers that
``hrpsim.dask.HrpsimPlugin`` started beside its Dask worker. Only the parameters and the results
cross the network. A ``ThreadPoolExecutor`` runs local simulations in threads of this process:
the core locks each simulation, not the process, and cffi releases the GIL in core calls.

``table=True`` returns a tidy table instead of the list: one row per parameter set, one column
per parameter key and per scalar the function returns (``sweep_table``), a pandas DataFrame
when pandas is installed, else a list of dicts. ``out_dir=DIR`` makes DIR the sweep's
directory: run i gets ``DIR/runs/NNNN/`` (``hrpsim.sweep_run_dir()`` inside the function;
the task writes its summary.json there: parameter, status, the scalars returned) and the sweep
writes ``DIR/index.csv`` and ``DIR/index.json`` (parameters, status, the summary
scalars). ``progress=True`` shows a progress bar in a terminal or a notebook (tqdm when
installed; else Dask's, or a line on stderr), plain lines when stderr is a file or a pipe.

Every run can start from one saved state (``state=``, an ``hrpsim.State`` from
``Simulation.save_state()``, e.g. after a settling phase run once): each task then calls
``setup(sim)`` (the configuration the state was saved from: the same models in the same order,
pairs and extra joints), restores the state, and calls ``func(sim, param)`` on the restored
simulation, whose steps give the bits the saved simulation's would have given. The state is
pickled to each task (the core checks it against the task's configuration: BadArgument naming
the difference).

``func`` (and ``setup``) must be picklable: a function defined at the top level of an
importable module (or of a script guarded by ``if __name__ == "__main__":``), not a lambda or a
closure.
"""

import concurrent.futures
import csv
import json
import math
import multiprocessing
import numbers
import os
import sys
import threading
from pathlib import Path

from . import paths

__all__ = ["sweep", "dynamics_factories", "run_serial", "sweep_table", "sweep_plot",
           "sweep_figure", "sweep_run_dir", "write_index"]

# per worker process: the client and the factory name it uses (server back end)
_worker = {}
_worker_lock = threading.Lock()
# the run directory of the task running in this thread (sweep_run_dir)
_task = threading.local()


def dynamics_factories(client):
    """Names of the dynamics factories bound in the client's naming service, in index order
    (DynamicsSimulatorFactory, DynamicsSimulatorFactory1, ...)."""
    found = []
    for name in client.names():
        index = paths.dynamics_factory_index(name)
        if index is not None:
            found.append((index, name))
    return [name for _, name in sorted(found)]


def sweep_run_dir():
    """The run directory of the sweep task running in this thread (``out_dir/runs/NNNN``,
    created) as a ``pathlib.Path``, or None outside a sweep with ``out_dir``."""
    run_dir = getattr(_task, "run_dir", None)
    return None if run_dir is None else Path(run_dir)


def _init_worker(naming, factories, counter, orb_args):
    from . import connect
    with counter.get_lock():
        index = counter.value
        counter.value += 1
    _worker["client"] = connect(naming, orb_args=orb_args)
    _worker["factory"] = factories[index % len(factories)]


def _server_worker(naming, orb_args):
    """(client, factory) for a task on the server back end in an executor process that
    ``_init_worker`` did not set up (a Dask worker): the naming service given, else the one
    ``hrpsim.dask.HrpsimPlugin`` started beside this worker ($HRPSIM_NAMING); threads of one
    worker take its factories in turn."""
    from . import connect, naming_from_environment
    from ._orb import HrpsimError
    with _worker_lock:
        if "client" not in _worker:
            client = connect(naming or naming_from_environment(), orb_args=orb_args)
            factories = dynamics_factories(client)
            if not factories:
                raise HrpsimError("no DynamicsSimulatorFactory is bound in %s (on a Dask "
                                  "worker, register hrpsim.dask.HrpsimPlugin)" % client.naming)
            _worker.update(client=client, factories=factories, threads={})
        if "factory" in _worker:
            return _worker["client"], _worker["factory"]
        threads = _worker["threads"]
        ident = threading.get_ident()
        if ident not in threads:
            threads[ident] = len(threads)
        factories = _worker["factories"]
        return _worker["client"], factories[threads[ident] % len(factories)]


def _start_from(sim, setup, state):
    """``setup(sim)`` then ``sim.restore_state(state)`` when a sweep starts from a state."""
    if state is not None:
        setup(sim)
        sim.restore_state(state)


def _run_one(func, param, sim_options, backend="local", naming=None, orb_args=(),
             run_dir=None, setup=None, state=None):
    """One task: a fresh Simulation on ``backend`` (set up and restored to ``state`` when
    given), ``func(sim, param)``, the Simulation closed. Runs in the executor's worker."""
    from .simulation import Simulation
    if backend == "server":
        client, factory = _server_worker(naming, tuple(orb_args))
        sim = Simulation(client, factory=factory, **sim_options)
    else:
        sim = Simulation(backend="local", **sim_options)
    if run_dir is not None:
        Path(run_dir).mkdir(parents=True, exist_ok=True)
    _task.run_dir = run_dir
    try:
        _start_from(sim, setup, state)
        result = func(sim, param)
    except Exception as exc:
        _write_run_summary(run_dir, param, None, "%s: %s" % (type(exc).__name__, exc))
        raise
    finally:
        _task.run_dir = None
        sim.close()
    _write_run_summary(run_dir, param, result, None)
    return result


def _write_run_summary(run_dir, param, result, error):
    """The run directory's summary.json: parameter, status, error and the result's scalars."""
    if run_dir is None:
        return
    doc = {"param": _json_param(param), "status": "ok" if error is None else "error",
           "error": error or "",
           "scalars": {k: _json_safe(v) for k, v in _scalars(result, "result").items()}}
    (Path(run_dir) / "summary.json").write_text(json.dumps(doc, indent=1) + "\n")


def run_serial(func, params, client=None, factory=None, backend=None, *, setup=None,
               state=None, **sim_options):
    """The same runs as ``sweep``, one by one in this process (the reference a sweep equals):
    on the local back end when ``backend="local"``, or by default when neither ``client`` nor
    ``factory`` is given; else client-driven on the servers. ``setup`` and ``state``: each run
    starts from the state, as in ``sweep``."""
    _check_start(setup, state)
    from .simulation import Simulation
    if backend is None:
        backend = "server" if client is not None or factory is not None else "local"
    if backend == "server" and client is None:
        from . import connect
        client = connect()
    results = []
    for param in params:
        if backend == "local":
            sim = Simulation(backend="local", **sim_options)
        else:
            sim = Simulation(client, factory=factory, **sim_options)
        try:
            _start_from(sim, setup, state)
            results.append(func(sim, param))
        finally:
            sim.close()
    return results


def _check_start(setup, state):
    """A state needs the set-up it was saved from; a set-up alone is refused too."""
    from .errors import BadArgument
    from .state import State
    if state is None and setup is None:
        return
    if not isinstance(state, State):
        raise BadArgument("state must be an hrpsim.State (from Simulation.save_state), got %s"
                          % type(state).__name__)
    if not callable(setup):
        raise BadArgument("a sweep from a state needs setup=FUNCTION(sim), the configuration "
                          "the state was saved from (models, pairs, extra joints)")


def sweep(func, params, workers=None, *, executor=None, backend=None, naming=None,
          state_dir=None, factories=None, orb_args=(), table=False, out_dir=None,
          progress=False, setup=None, state=None, **sim_options):
    """``[func(sim, p) for p in params]``, the runs spread over worker processes (and
    servers), or over ``executor``.

    ``executor``: any ``concurrent.futures.Executor``, or a Dask ``distributed.Client``; None
    (the default) makes a process pool ('spawn') of ``workers`` processes for this call.
    ``backend``: "local" (in-process simulations in each worker; the default unless ``naming``,
    ``factories`` or ``state_dir`` is given) or "server". ``workers``: number of worker
    processes of the default pool (local: the number of CPUs; server: one per dynamics server;
    never more than there are parameters). Server back end: ``naming``: the naming service
    (default ``$HRPSIM_NAMING`` or ``hrpsim up``'s state in ``state_dir``; with an
    ``executor`` and no ``naming``, each task uses its worker's own servers, see
    ``hrpsim.dask.HrpsimPlugin``). ``factories``: the factory names to use (default every
    DynamicsSimulatorFactory<k> bound); worker i uses ``factories[i % len(factories)]``.
    ``sim_options`` go to each ``Simulation`` (``dt``, ``gravity``, ...). ``state`` and
    ``setup``: every run starts from ``state`` (an ``hrpsim.State``) after ``setup(sim)``
    configured it as it was when the state was saved (module comment).

    Returns the results in parameter order, or with ``table=True`` the tidy table of
    ``sweep_table``. ``out_dir``: the sweep directory (module comment). ``progress``: show a
    progress bar. An exception raised by ``func`` is raised here (the other runs are
    cancelled), except with ``out_dir`` or ``table``, where the run is recorded with status
    "error" and its message, and the others go on. Raises HrpsimError if no dynamics server is
    bound (server back end, default pool).
    """
    params = list(params)
    _check_start(setup, state)
    if backend is None:
        given = naming is not None or factories is not None or state_dir is not None
        backend = "server" if given else "local"
    if backend not in ("local", "server"):
        raise ValueError("backend must be 'local' or 'server', got %r" % (backend,))
    if workers is not None and int(workers) < 1:
        raise ValueError("workers must be >= 1, got %r" % workers)
    record = bool(table) or out_dir is not None
    run_dirs = [None] * len(params)
    if out_dir is not None:
        out_dir = Path(out_dir)
        (out_dir / "runs").mkdir(parents=True, exist_ok=True)
        run_dirs = [str((out_dir / "runs" / ("%04d" % i)).resolve())
                    for i in range(len(params))]
    task_args = dict(backend=backend, naming=naming, orb_args=tuple(orb_args))
    if state is not None:
        task_args.update(setup=setup, state=state)

    if executor is not None:
        if backend == "server" and naming is None and state_dir is not None:
            from . import naming_from_environment
            task_args["naming"] = naming_from_environment(state_dir)
        outcomes = _run_all(executor, func, params, sim_options, task_args, run_dirs,
                            record, progress)
    elif not params:
        outcomes = []
    elif backend == "local":
        n = min((os.cpu_count() or 1) if workers is None else int(workers), len(params))
        ctx = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(max_workers=n, mp_context=ctx) as pool:
            outcomes = _run_all(pool, func, params, sim_options, task_args, run_dirs, record,
                                progress)
    else:
        from . import connect, naming_from_environment
        from ._orb import HrpsimError
        naming = naming or naming_from_environment(state_dir)
        task_args["naming"] = naming
        if factories is None:
            factories = dynamics_factories(connect(naming))
        factories = list(factories)
        if not factories:
            raise HrpsimError("no DynamicsSimulatorFactory is bound in %s (start the servers "
                              "with `hrpsim up --dynamics N`)" % naming)
        n = min(len(factories) if workers is None else int(workers), len(params))
        ctx = multiprocessing.get_context("spawn")
        counter = ctx.Value("i", 0)
        with concurrent.futures.ProcessPoolExecutor(
                max_workers=n, mp_context=ctx, initializer=_init_worker,
                initargs=(naming, factories, counter, tuple(orb_args))) as pool:
            outcomes = _run_all(pool, func, params, sim_options, task_args, run_dirs, record,
                                progress)

    results = [value for value, _ in outcomes]
    errors = [error for _, error in outcomes]
    if out_dir is not None:
        write_index(out_dir, params, results, errors, run_dirs)
    if table:
        return sweep_table(params, results, errors)
    return results


def _is_dask_client(executor):
    return type(executor).__module__.split(".")[0] == "distributed" and \
        hasattr(executor, "gather")


def _run_all(executor, func, params, sim_options, task_args, run_dirs, record, progress):
    """Submit one task per parameter; [(result, error text or None)] in parameter order.
    Without ``record`` the first error is raised (the other tasks cancelled)."""
    if not params:
        return []
    dask = _is_dask_client(executor)
    futures = []
    for param, run_dir in zip(params, run_dirs):
        args = (_run_one, func, param, sim_options)
        kwargs = dict(task_args, run_dir=run_dir)
        if dask:
            # pure=False: equal parameters are still separate runs (own run directories)
            futures.append(executor.submit(*args, pure=False, **kwargs))
        else:
            futures.append(executor.submit(*args, **kwargs))
    try:
        if progress:
            _show_progress(futures, dask)
        if dask:
            return _gather_dask(executor, futures, record)
        outcomes = []
        for f in futures:
            try:
                outcomes.append((f.result(), None))
            except Exception as exc:  # noqa: BLE001 - recorded, or raised below
                if not record:
                    raise
                outcomes.append((None, "%s: %s" % (type(exc).__name__, exc)))
        return outcomes
    except BaseException:
        for f in futures:
            f.cancel()
        raise


def _gather_dask(client, futures, record):
    """The outcomes of Dask futures, fetched in one gather (not one round trip each)."""
    if not record:
        return [(value, None) for value in client.gather(futures)]
    from distributed import wait
    wait(futures)
    done = [f for f in futures if f.status == "finished"]
    values = dict(zip((f.key for f in done), client.gather(done)))
    outcomes = []
    for f in futures:
        if f.key in values:
            outcomes.append((values[f.key], None))
        else:
            exc = f.exception()
            outcomes.append((None, "%s: %s" % (type(exc).__name__, exc)))
    return outcomes


def _show_progress(futures, dask):
    """Progress over the futures until all are done: in a terminal or a Jupyter notebook a bar
    (tqdm.auto when installed, else Dask's own, else a line on stderr rewritten in place);
    elsewhere (stderr a file or a pipe) plain lines, "sweep: K/N runs", at most about ten
    of them, never a carriage return."""
    total = len(futures)
    if dask:
        from distributed import as_completed
    else:
        from concurrent.futures import as_completed
    if not (_is_terminal(sys.stderr) or "ipykernel" in sys.modules):
        step = max(1, -(-total // 10))   # every tenth of the runs, and the last
        for done, _ in enumerate(as_completed(futures), 1):
            if done % step == 0 or done == total:
                sys.stderr.write("sweep: %d/%d runs\n" % (done, total))
                sys.stderr.flush()
        return
    try:
        from tqdm.auto import tqdm
    except ImportError:
        tqdm = None
    if tqdm is None and dask:
        from distributed import progress as dask_progress
        dask_progress(futures)
        return
    if tqdm is not None:
        with tqdm(total=total, desc="sweep", unit="run") as bar:
            for _ in as_completed(futures):
                bar.update(1)
        return
    for done, _ in enumerate(as_completed(futures), 1):
        sys.stderr.write("\rsweep: %d/%d runs" % (done, total))
        sys.stderr.flush()
    sys.stderr.write("\n")


def _is_terminal(stream):
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


# =============================================================================================
# results as tables
# =============================================================================================

def _scalar(value):
    """``value`` as a plain Python scalar (bool, int, float, str), or None if it is not one
    (0-d NumPy arrays and NumPy scalars count)."""
    if isinstance(value, (bool, str)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    shape = getattr(value, "shape", None)
    if shape == () and hasattr(value, "item"):
        return _scalar(value.item())
    return None


def _scalars(value, whole):
    """{column: scalar} of a parameter or a result: a dict's scalar entries, or the value
    itself under ``whole`` when it is a scalar."""
    if isinstance(value, dict):
        out = {}
        for key, v in value.items():
            s = _scalar(v)
            if s is not None:
                out[str(key)] = s
        return out
    s = _scalar(value)
    return {} if s is None else {whole: s}


def table_rows(params, results, errors=None):
    """The rows of the tidy table: per run a dict of its parameter scalars, "status" ("ok" or
    "error"), "error" (the message, "" if none) and the result's scalars (a result key equal
    to a parameter key becomes "result.KEY")."""
    errors = errors or [None] * len(params)
    rows = []
    for param, result, error in zip(params, results, errors):
        row = _scalars(param, "param")
        row["status"] = "ok" if error is None else "error"
        row["error"] = error or ""
        for key, v in _scalars(result, "result").items():
            row["result." + key if key in row else key] = v
        rows.append(row)
    return rows


def sweep_table(params, results, errors=None):
    """The tidy table of a sweep (``table_rows``): a pandas DataFrame when pandas is
    installed, else the list of row dicts."""
    rows = table_rows(params, results, errors)
    try:
        import pandas
    except ImportError:
        return rows
    return pandas.DataFrame(rows, columns=_columns(rows))


def _columns(rows):
    columns = []
    for row in rows:
        for key in row:
            if key not in columns:
                columns.append(key)
    return columns


def _json_safe(value):
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)  # nan, inf: JSON has no such numbers
    return value


def write_index(out_dir, params, results, errors, run_dirs):
    """Write the sweep directory's index.csv and index.json: one row per run (index, run
    directory relative to ``out_dir``, the ``table_rows`` columns). Returns the index path."""
    out_dir = Path(out_dir)
    rows = []
    for i, (row, run_dir) in enumerate(zip(table_rows(params, results, errors), run_dirs)):
        head = {"index": i}
        if run_dir is not None:
            head["run_dir"] = os.path.relpath(run_dir, out_dir)
        head.update(row)
        rows.append(head)
    columns = _columns(rows)
    with open(out_dir / "index.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: ("%r" % v if isinstance(v, float) else v)
                             for k, v in row.items()})
    doc = {"format": "hrpsim-sweep-1", "columns": columns,
           "runs": [{k: _json_safe(v) for k, v in row.items()} for row in rows],
           "params": [_json_param(p) for p in params]}
    (out_dir / "index.json").write_text(json.dumps(doc, indent=1) + "\n")
    return out_dir / "index.json"


def _json_param(param):
    try:
        json.dumps(param)
        return param
    except (TypeError, ValueError):
        return repr(param)


def _column(table, name):
    if hasattr(table, "columns"):  # a pandas DataFrame
        return [v for v in table[name]]
    return [row.get(name) for row in table]


def sweep_plot(table, x, y, path, title=None, by=None):
    """Plot column ``y`` (a metric) against column ``x`` (a parameter) of a sweep table (a
    DataFrame or a list of row dicts) to the PNG ``path`` (``sweep_figure``). Returns the
    path."""
    import matplotlib.pyplot as plt
    fig = sweep_figure(table, x, y, title, by)
    fig.savefig(str(path))
    plt.close(fig)
    return Path(path)


def sweep_figure(table, x, y, title=None, by=None):
    """The figure of ``sweep_plot``: ``y`` against ``x``, runs with status "error" and
    missing values left out, points in ``x`` order, one labelled line per combination of the
    other parameters that vary (``by``: those columns; default: the table's parameter columns,
    those before "status", other than ``x``), so a grid is not drawn as one zigzag. Raises
    BadArgument when every run failed (the first error shown) or a column is missing."""
    _check_plot_columns(table, x, y)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if by is None:
        by = [c for c in _param_columns(table) if c not in (x, y)]
    elif isinstance(by, str):
        by = [by]
    points = []
    statuses = _column(table, "status") if _has_column(table, "status") else None
    others = [_column(table, c) for c in by]
    for i, (a, b) in enumerate(zip(_column(table, x), _column(table, y))):
        if statuses is not None and statuses[i] != "ok":
            continue
        if a is None or b is None or (isinstance(b, float) and math.isnan(b)):
            continue
        points.append((tuple(o[i] for o in others), a, b))
    if not points:
        raise ValueError("sweep_plot: no run has both %r and %r" % (x, y))
    # the other parameters that take more than one value among the points split the lines
    varying = [k for k in range(len(by)) if len({p[0][k] for p in points}) > 1]
    lines = {}
    for key, a, b in points:
        lines.setdefault(tuple(key[k] for k in varying), []).append((a, b))
    fig, ax = plt.subplots(figsize=(7.5 if varying else 6, 4), dpi=100)
    for key in sorted(lines, key=_sort_key):
        pts = sorted(lines[key], key=lambda p: p[0])
        label = ", ".join("%s = %s" % (by[k], _label_value(v)) for k, v in zip(varying, key))
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=label or None)
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    default = "%s vs %s (%d runs)" % (y, x, len(points))
    if varying:
        default += ", a line per %s" % ", ".join(by[k] for k in varying)
    ax.set_title(title or default)
    ax.grid(True, alpha=0.3)
    ax.ticklabel_format(style="plain", useOffset=False)
    if varying:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    fig.tight_layout()
    return fig


def _param_columns(table):
    # the parameter columns: table_rows puts a run's parameters before "status", index.csv and
    # index.json after "index" and "run_dir" (a table without a status column has none known)
    cols = list(table.columns) if hasattr(table, "columns") else _columns(table)
    cols = cols[:cols.index("status")] if "status" in cols else []
    return [c for c in cols if c not in ("index", "run_dir")]


def _sort_key(key):
    # numbers in order, then anything else by its text
    return tuple((0, float(v), "") if isinstance(v, numbers.Real) and not isinstance(v, bool)
                 else (1, 0.0, str(v)) for v in key)


def _label_value(v):
    return "%g" % v if isinstance(v, numbers.Real) and not isinstance(v, bool) else str(v)


def _check_plot_columns(table, x, y):
    """BadArgument (a ValueError) saying why ``table`` has nothing to plot as ``y`` against
    ``x``: every run failed (the first error shown), or a column is not there."""
    from .errors import BadArgument
    statuses = _column(table, "status") if _has_column(table, "status") else []
    if statuses and all(st != "ok" for st in statuses):
        first = _column(table, "error")[0] if _has_column(table, "error") else ""
        raise BadArgument("sweep_plot: every run failed (%d of %d), nothing to plot; the "
                          "first error (run 0): %s" % (len(statuses), len(statuses),
                                                       first or "not recorded"))
    for name in (x, y):
        if not _has_column(table, name):
            columns = list(table.columns) if hasattr(table, "columns") else \
                list(dict.fromkeys(k for row in table for k in row))
            raise BadArgument("sweep_plot: no column %r in the table (columns: %s)"
                              % (name, ", ".join(map(str, columns))))


def _has_column(table, name):
    if hasattr(table, "columns"):
        return name in table.columns
    return any(name in row for row in table)
