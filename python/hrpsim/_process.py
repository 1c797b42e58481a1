"""Stopping the child processes hrpsim starts in their own sessions (controllers, a viewer)."""

import os
import signal
import subprocess
import time


def _signal_group(proc, sig):
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        pass


def stop_groups(procs, grace):
    """SIGTERM the process group of every ``subprocess.Popen`` in ``procs``, wait up to
    ``grace`` s in all for them, then SIGKILL the groups whose leader is still there.

    Each process must lead its own session (``start_new_session=True``) and still be
    running. Returns, per process in order, ("stopped" or "killed", its exit status).
    """
    for proc in procs:
        _signal_group(proc, signal.SIGTERM)
    deadline = time.monotonic() + grace
    out = []
    for proc in procs:
        try:
            out.append(("stopped", proc.wait(max(0.0, deadline - time.monotonic()))))
        except subprocess.TimeoutExpired:
            _signal_group(proc, signal.SIGKILL)
            out.append(("killed", proc.wait()))
    return out
