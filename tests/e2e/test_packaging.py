"""How the hrpsim package installs (python/pyproject.toml), without servers.

tools/bootstrap.sh (and so setup.sh) installs the package editable (`pip install -e python`).
For a flat layout whose package directory setuptools has to guess, setuptools installs an
import hook instead of a path entry and prints its "Editable installation ... Please be careful
with folders in your working directory" warning block on every install. pyproject.toml names
the package directory (package-dir {"" = "."}), so setuptools picks the plain .pth file that
puts python/ on sys.path, and prints nothing. The test asks setuptools itself which editable
strategy it chooses for our pyproject.toml (its editable_wheel command, offline: no wheel is
built, nothing is written).
"""

import subprocess
import sys
from pathlib import Path

PYTHON_DIR = Path(__file__).resolve().parents[2] / "python"

CHOOSE = """\
import tempfile
from setuptools.dist import Distribution
from setuptools.config.pyprojecttoml import apply_configuration
from setuptools.command.editable_wheel import editable_wheel

dist = Distribution()
apply_configuration(dist, "pyproject.toml")
cmd = editable_wheel(dist)
cmd.ensure_finalized()
with tempfile.TemporaryDirectory() as build_lib:
    strategy = cmd._select_strategy("hrpsim", "0.1.0", build_lib)
print(type(strategy).__name__, *getattr(strategy, "path_entries", []))
"""


def test_editable_install_is_a_plain_path_entry():
    proc = subprocess.run([sys.executable, "-W", "ignore", "-c", CHOOSE], cwd=PYTHON_DIR,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    words = proc.stdout.split()
    # _TopLevelFinder would be the import hook that comes with the warning block
    assert words[0] == "_StaticPth", proc.stdout
    assert [Path(PYTHON_DIR, w).resolve() for w in words[1:]] == [PYTHON_DIR]
