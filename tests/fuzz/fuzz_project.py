"""Fuzz harness for the project readers (hrpsim's XML format and GrxUI's), which are Python
(python/hrpsim/project.py, expat): atheris (libFuzzer for Python, coverage-guided over the
instrumented hrpsim.project module).

The input is a project file, written next to copies of the sample models (so model URLs such
as ../models/arm6/arm6.wrl resolve); load_project must return a Project or raise ProjectError.
Any other exception is a finding. Run through tools/fuzz.sh (target "project"); libFuzzer's
options (-max_total_time, -runs, a corpus directory) are passed through.
"""

import os
import sys
import tempfile

import atheris

with atheris.instrument_imports():
    from hrpsim import project

SCRATCH = tempfile.mkdtemp(prefix="hrpsim-fuzz-project-")
PATH = os.path.join(SCRATCH, "projects", "fuzzed.xml")
os.makedirs(os.path.dirname(PATH))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.symlink(os.path.join(REPO, "samples", "models"), os.path.join(SCRATCH, "models"))


def test_one_input(data):
    with open(PATH, "wb") as f:
        f.write(data)
    try:
        p = project.load_project(PATH)
    except project.ProjectError:
        return
    # a project that loads holds what the scheduler needs: a time step it accepts
    assert project.MIN_TIME_STEP <= p.time_step <= project.MAX_TIME_STEP, p.time_step
    assert p.models


def main():
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
