"""Which e2e files test.sh's sanitizer stage runs again, file by file, with the reason.

test.sh runs every file of tests/e2e in its normal stage. Its sanitizer stage (servers, unit
runners and the local back end's extension built with ASan + UBSan) runs again only the files
marked NATIVE here: those whose tests drive our C/C++ code (the servers, the in-process core
through hrpsim.local, model parsing of real and bad inputs, collision, dynamics, the scheduler,
vision). PYTHON files test Python-level logic whose C/C++ calls are the same ones the NATIVE
files make (CLI plumbing, project parsing, docs snippets, plots, sweeps and Dask, the viewer,
packaging); running them under ASan finds nothing the NATIVE files do not.

conftest.py marks each collected test ``native`` or ``python`` from this table (test.sh's
sanitizer stage runs ``pytest -m native``), and collecting a file missing from the table is an
error; test_stages.py checks that the table names exactly the files of tests/e2e. A new e2e
file must be put in one group, with its reason.
"""

NATIVE = {
    "test_api_fuzz.py": "random valid and invalid call sequences into dynamics and scheduler",
    "test_collision.py": "the CollisionDetector server's queries",
    "test_controller.py": "the scheduler calling a Python controller back over CORBA",
    "test_core_facts.py": "the core's tables through the cffi extension, and local runs "
                          "(runaway, sensors) against them",
    "test_cross_host.py": "servers' --listen endpoints and the local core against the servers",
    "test_diagnostics.py": "the servers' refusal paths (bad requests, server-side reasons)",
    "test_distance_points.py": "collision distance queries",
    "test_dynamics.py": "the DynamicsSimulator server's physics",
    "test_integrator.py": "the integration method through the core's doors and OpenHRP's init "
                          "on both engines",
    "test_highgain.py": "high-gain prescribed motion on the joint-space engine through the "
                        "core's three doors",
    "test_errors.py": "the same mistakes on the local core, the dynamics server and the "
                      "scheduler",
    "test_exposure.py": "the servers' endpoint and socket-directory checks (C++ start-up)",
    "test_limits.py": "the ModelLoader's file, size and mesh-memory limits on bad inputs",
    "test_local.py": "the in-process core (hrpsim.local, the cffi extension)",
    "test_loops.py": "closed loops and crawler tracks in the dynamics server",
    "test_memory.py": "the dynamics server's heap under concurrent world cycles",
    "test_mjcf.py": "MJCF parsing (model/mjcf) through the ModelLoader and the local core",
    "test_modelloader.py": "VRML parsing and BodyInfo of real and bad models",
    "test_mutation.py": "hundreds of mutated model files through the ModelLoader",
    "test_one_call.py": "stepWith and the one-call controller path of the servers",
    "test_options.py": "sleeping and other core options on the local, server, scheduler doors",
    "test_solver.py": "the engine and solver settings through every door, and their refusals",
    "test_primitives.py": "model_primitive.c through the ModelLoader and the local core",
    "test_push.py": "external forces through the core's three doors, the scheduler's push",
    "test_range.py": "range sensors and noise in the dynamics and view servers",
    "test_run.py": "the sample projects run through the scheduler, dynamics and controllers",
    "test_run_local_results.py": "`hrpsim run --local` on the in-process core against the "
                                 "scheduler's results",
    "test_run_pictures.py": "stills and room cameras rendered by hrpsim-view during runs",
    "test_runaway.py": "runaway detection in the core, through the servers",
    "test_scheduler.py": "the scheduler server's call order and timing",
    "test_simulation.py": "hrpsim.Simulation driving the dynamics server",
    "test_state.py": "saved states restored bit for bit on the local, server, scheduler doors "
                     "and both engines",
    "test_stress.py": "8 concurrent clients against ModelLoader and dynamics (threads)",
    "test_urdf.py": "URDF and mesh parsing (assimp import, conversion) in the ModelLoader",
    "test_urdf_sensors.py": "Gazebo sensor parsing and the servers' sensor readings",
    "test_vision.py": "the ViewSimulator's renderer",
    "test_vision_run.py": "the scheduler rendering cameras during a run",
}

PYTHON = {
    "test_cli.py": "hrpsim up/down/status plumbing (launcher, state files, ports)",
    "test_dask.py": "Dask scheduling of sweeps; the runs are test_local's and test_simulation's",
    "test_configuration.py": "a project's Scheduler calls on a recording stand-in; its local "
                             "runs repeat test_local's",
    "test_docs.py": "the docs' snippets; what they call is tested by the NATIVE files",
    "test_idl.py": "the generated Python stubs' type tables, no server",
    "test_packaging.py": "how pip installed the package",
    "test_plots.py": "matplotlib pictures of a run's log",
    "test_project.py": "project XML parsing (project.py); its runs repeat test_run's",
    "test_project_lines.py": "line numbers in project.py's and run.py's error messages",
    "test_run_dirs.py": "results and state directories written by the CLI",
    "test_stages.py": "checks this table against the directory",
    "test_style.py": "line lengths of the tracked sources, no program run",
    "test_sweep.py": "hrpsim.sweep's ordering and round robin over server sets",
    "test_sweep_cli.py": "the `hrpsim sweep` command and the directory it writes",
    "test_usability.py": "CLI conveniences (hrpsim env, results/ placement, README links)",
    "test_viewer.py": "the Python OnlineViewer server and its WebSocket",
    "test_viewer_browser.py": "the viewer's page in Chromium",
    "test_viewer_browser_pictures.py": "the viewer page's camera tiles, summary and framing",
    "test_viewer_cameras.py": "the viewer's camera frame index and HTTP routes",
    "test_viewer_control.py": "the page pausing, stepping and pushing a run: Python and the "
                              "page; the scheduler's push is test_push's",
    "test_viewer_run.py": "up --viewer, run --view, replays: Python; the scheduler's pushes to "
                          "an OnlineViewer are test_scheduler's",
}


def group(filename):
    """"native" or "python" for an e2e file name (e.g. "test_local.py"); KeyError if unlisted."""
    if filename in NATIVE:
        return "native"
    if filename in PYTHON:
        return "python"
    raise KeyError(filename)
