"""hrpsim.solver: the engine and solver settings as every door passes them on.

A world runs on one of two engines: ``"joint_space"`` (the default: hrpsim's reduced-coordinate
engine; it solves contacts, joint limits, closed loops and crawler tracks, and the start of a
world with the ODE engine's rotor-inertia option is refused with the reason) or ``"ode"`` (ODE in
maximal coordinates, chosen by name). The default is the core's (hsd_defaultOptions,
``default_engine()``). Solver settings are name/value
pairs; the core checks them, once for every door (dynamics/dynamics_settings.c): an unknown
name, a setting the chosen engine does not have, a value out of range is refused with a message
that names it. Here they are only turned into the text the core reads (numbers exactly: repr of
a float reads back bit for bit). docs/servers.md ("Engines and solver settings") has the table
of names, defaults and ranges.
"""

import numbers

from .errors import BadArgument

__all__ = ["ENGINES", "SETTINGS", "solver_spec", "project_attribute", "default_engine"]

ENGINES = ("joint_space", "ode")

# the core's settings, in its order (hsd_solverSettingName; tests/e2e/test_solver.py checks
# that the lists agree): all the ODE engine's, the joint-space engine has none yet
SETTINGS = ("stepper", "iterations", "chain_iterations", "erp", "cfm", "contact_erp",
            "contact_cfm", "surface_layer", "max_correcting_vel", "max_contacts_per_pair")


def project_attribute(name):
    """A setting's attribute in a project's <simulation> element: lowerCamelCase
    (``max_contacts_per_pair`` -> ``maxContactsPerPair``)."""
    head, *rest = name.split("_")
    return head + "".join(w.capitalize() for w in rest)


def _text(name, value):
    """``value`` as the core reads it: a name as is, an integer in decimal, a float by repr."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise BadArgument("solver setting %s: give a number or a name, got %r" % (name, value))
    if isinstance(value, numbers.Integral):
        return str(int(value))
    return repr(float(value))


def solver_spec(engine=None, solver=None):
    """(engine, ((name, text), ...)) of an engine name (None: the server's default, the core's
    ``default_engine()`` unless hrpsim-dynamics was started with --engine) and a mapping of
    settings (None: none).
    Only the form is checked here (a name and text values); the core checks the rest."""
    if engine is not None and not isinstance(engine, str):
        raise BadArgument("engine must be a name (%s), got %r" % (" or ".join(ENGINES), engine))
    if solver is None:
        solver = {}
    if not hasattr(solver, "items"):
        raise BadArgument("solver must be a mapping of setting names to values, got %r"
                          % (solver,))
    settings = []
    for name, value in solver.items():
        if not isinstance(name, str):
            raise BadArgument("solver setting names are strings, got %r" % (name,))
        settings.append((name, _text(name, value)))
    return (engine or "", tuple(settings))


def default_engine():
    """The core's default engine's name ("joint_space"; hsd_defaultOptions), asked of a scratch
    simulation of the in-process core; without the core's extension (not built), the name the
    core is built with by default."""
    try:
        from .local import core_module
        ffi, lib = core_module().ffi, core_module().lib
    except ImportError:
        return ENGINES[0]
    err = ffi.new("hsError *")
    sim = lib.hs_makeSim(err)
    if sim == ffi.NULL:
        raise MemoryError("no memory for a scratch simulation")
    try:
        return ffi.string(lib.hs_engine(sim)).decode()
    finally:
        lib.hs_freeSim(sim)


def check(engine, settings):
    """The core's verdict on (engine, settings) (as solver_spec gives them), on a scratch
    simulation of the in-process core: BadArgument with its message, or None. Lets a project
    name the file and line of a bad setting before any server is asked; without the core's
    extension (not built) nothing is checked here and the server refuses it instead."""
    try:
        from .local import core_module
        ffi, lib = core_module().ffi, core_module().lib
    except ImportError:
        return
    err = ffi.new("hsError *")
    sim = lib.hs_makeSim(err)
    if sim == ffi.NULL:
        raise MemoryError("no memory for a scratch simulation")
    try:
        keep = [ffi.new("char[]", t.encode()) for pair in settings for t in pair]
        if lib.hs_setSolver(sim, engine.encode(), len(settings), keep[0::2] or ffi.NULL,
                            keep[1::2] or ffi.NULL, err) < 0:
            raise BadArgument(ffi.string(err.message).decode(errors="replace"))
    finally:
        lib.hs_freeSim(sim)
