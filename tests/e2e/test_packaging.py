"""How the hrpsim package is installed in the virtualenv running the tests, without servers.

tools/bootstrap.sh (and so setup.sh and test.sh) installs the package editable
(`pip install -e python`). For a flat layout whose package directory setuptools has to guess,
setuptools installs an import hook (an `__editable___hrpsim_*_finder.py` module) instead of a
path entry, and prints its "Please be careful with folders in your working directory" warning
block on every install. python/pyproject.toml names the package directory
(package-dir {"" = "."}), so the install is a plain .pth file holding the path of python/.
The test reads what pip recorded for the installed distribution (its RECORD) and the .pth file.
"""

import importlib.metadata
import sysconfig
from pathlib import Path

PYTHON_DIR = Path(__file__).resolve().parents[2] / "python"


def test_editable_install_is_a_plain_path_entry():
    # the virtualenv's record, not an hrpsim.egg-info that setuptools may leave in python/ (which
    # wins whenever python/ comes first on sys.path, as some tests put it)
    site = sysconfig.get_paths()["purelib"]
    found = list(importlib.metadata.distributions(name="hrpsim", path=[site]))
    assert len(found) == 1, "hrpsim is not installed in %s" % site
    dist = found[0]
    files = [str(f) for f in dist.files or []]
    hooks = [f for f in files if f.startswith("__editable___") and f.endswith("_finder.py")]
    assert not hooks, ("hrpsim is installed with an import hook (%s): reinstall it with "
                       "`.venv/bin/pip install -e python`" % hooks)
    pths = [f for f in files if f.startswith("__editable__.") and f.endswith(".pth")]
    assert len(pths) == 1, files
    lines = [ln.strip() for ln in dist.locate_file(pths[0]).read_text().splitlines()
             if ln.strip()]
    assert [Path(ln).resolve() for ln in lines] == [PYTHON_DIR.resolve()]
