"""hrpsim.sweep: run one simulation per parameter, in parallel worker processes.

By default (``backend="local"``) each worker process runs its simulations in process on the
local back end (``hrpsim.Simulation(backend="local")``, the simulation core inside Python): no
naming service, no servers to start; ``workers`` defaults to the number of CPUs. The core
computes the same numbers in every process, so a sweep returns exactly what the runs done one
by one return (``run_serial``).

With ``backend="server"`` (the default when ``naming``, ``factories`` or ``state_dir`` is
given) the runs go to dynamics servers instead. ODE work is serialised inside one
hrpsim-dynamics process (Debian's ODE collision is not thread-safe), so parallel runs need
several server processes: ``hrpsim up --dynamics N`` starts N of them, bound as
DynamicsSimulatorFactory, DynamicsSimulatorFactory1, ..., DynamicsSimulatorFactory<N-1>.
``sweep`` starts ``workers`` Python processes ('spawn': a fresh interpreter and its own omniORB
ORB each); worker i makes its simulations on factory i mod N, so with fewer servers than
workers some workers share a server (and its CPU).

Each parameter gets a fresh ``hrpsim.Simulation`` (local, or client-driven on the worker's
factory); ``func(sim, param)`` configures it, runs it and returns a picklable result; the
Simulation is closed afterwards. Results come back in parameter order. A server steps the same
calls to the same numbers whichever process it is, so a sweep returns exactly what the runs
done one by one return.

``func`` must be picklable: a function defined at the top level of an importable module (or of
a script guarded by ``if __name__ == "__main__":``), not a lambda or a closure.
"""

import concurrent.futures
import multiprocessing

from . import paths

__all__ = ["sweep", "dynamics_factories"]

# per worker process: the client and the factory name it uses
_worker = {}


def dynamics_factories(client):
    """Names of the dynamics factories bound in the client's naming service, in index order
    (DynamicsSimulatorFactory, DynamicsSimulatorFactory1, ...)."""
    found = []
    for name in client.names():
        index = paths.dynamics_factory_index(name)
        if index is not None:
            found.append((index, name))
    return [name for _, name in sorted(found)]


def _init_worker(naming, factories, counter, orb_args):
    from . import connect
    with counter.get_lock():
        index = counter.value
        counter.value += 1
    _worker["client"] = connect(naming, orb_args=orb_args)
    _worker["factory"] = factories[index % len(factories)]


def _run_one(func, param, sim_options):
    from .simulation import Simulation
    if "client" in _worker:
        sim = Simulation(_worker["client"], factory=_worker["factory"], **sim_options)
    else:
        sim = Simulation(backend="local", **sim_options)
    try:
        return func(sim, param)
    finally:
        sim.close()


def run_serial(func, params, client=None, factory=None, backend=None, **sim_options):
    """The same runs as ``sweep``, one by one in this process (the reference a sweep equals):
    on the local back end when ``backend="local"``, or by default when neither ``client`` nor
    ``factory`` is given; else client-driven on the servers."""
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
            results.append(func(sim, param))
        finally:
            sim.close()
    return results


def sweep(func, params, workers=None, *, backend=None, naming=None, state_dir=None,
          factories=None, orb_args=(), **sim_options):
    """``[func(sim, p) for p in params]``, the runs spread over worker processes (and
    servers).

    ``backend``: "local" (in-process simulations in each worker; the default unless ``naming``,
    ``factories`` or ``state_dir`` is given) or "server". ``workers``: number of worker
    processes (default: local, the number of CPUs; server, one per dynamics server; never more
    than there are parameters). Server back end only: ``naming``: the naming service (default
    ``$HRPSIM_NAMING`` or ``hrpsim up``'s state in ``state_dir``). ``factories``: the factory
    names to use (default every DynamicsSimulatorFactory<k> bound, see ``dynamics_factories``);
    worker i uses ``factories[i % len(factories)]``. ``sim_options`` go to each ``Simulation``
    (``dt``, ``gravity``, ...). An exception raised by ``func`` is raised here (the other runs
    are cancelled). Raises HrpsimError if no dynamics server is bound (server back end).
    """
    params = list(params)
    if backend is None:
        given = naming is not None or factories is not None or state_dir is not None
        backend = "server" if given else "local"
    if backend == "local":
        return _sweep_local(func, params, workers, sim_options)
    if backend != "server":
        raise ValueError("backend must be 'local' or 'server', got %r" % (backend,))
    from . import connect, naming_from_environment
    from ._orb import HrpsimError
    naming = naming or naming_from_environment(state_dir)
    if factories is None:
        factories = dynamics_factories(connect(naming))
    factories = list(factories)
    if not factories:
        raise HrpsimError("no DynamicsSimulatorFactory is bound in %s (start the servers with "
                          "`hrpsim up --dynamics N`)" % naming)
    if not params:
        return []
    workers = len(factories) if workers is None else int(workers)
    if workers < 1:
        raise ValueError("workers must be >= 1, got %r" % workers)
    workers = min(workers, len(params))

    ctx = multiprocessing.get_context("spawn")
    counter = ctx.Value("i", 0)
    with concurrent.futures.ProcessPoolExecutor(
            max_workers=workers, mp_context=ctx, initializer=_init_worker,
            initargs=(naming, factories, counter, tuple(orb_args))) as pool:
        futures = [pool.submit(_run_one, func, p, sim_options) for p in params]
        try:
            return [f.result() for f in futures]
        except BaseException:
            for f in futures:
                f.cancel()
            raise


def _sweep_local(func, params, workers, sim_options):
    """The local back end's sweep: 'spawn' workers (a fresh interpreter each), one in-process
    simulation per parameter."""
    import os
    if not params:
        return []
    workers = (os.cpu_count() or 1) if workers is None else int(workers)
    if workers < 1:
        raise ValueError("workers must be >= 1, got %r" % workers)
    workers = min(workers, len(params))
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        futures = [pool.submit(_run_one, func, p, sim_options) for p in params]
        try:
            return [f.result() for f in futures]
        except BaseException:
            for f in futures:
                f.cancel()
            raise
