"""``python -m hrpsim._watchdog STATE_DIR``: stop what `hrpsim up` recorded in STATE_DIR and
remove STATE_DIR once standard input closes, that is once the process holding its write end (a
Dask worker with ``hrpsim.dask.HrpsimPlugin``) is gone, however it went (even SIGKILL)."""

import sys


def main(argv=None):
    """Wait for end of file on stdin, then ``launcher.down(STATE_DIR)`` and remove the
    directory; returns 0 (1 if a server survived)."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        sys.stderr.write("usage: python -m hrpsim._watchdog STATE_DIR\n")
        return 2
    while sys.stdin.buffer.read(4096):
        pass
    import shutil

    from . import launcher
    try:
        launcher.down(argv[0])
    except launcher.LaunchError as exc:
        sys.stderr.write("hrpsim watchdog: %s\n" % exc)
        return 1
    shutil.rmtree(argv[0], ignore_errors=True)  # the plugin's private state dir
    return 0


if __name__ == "__main__":
    sys.exit(main())
