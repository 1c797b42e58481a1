"""tests/e2e/stages.py names every e2e file exactly once, each with a reason, so test.sh's
sanitizer stage (``pytest -m native``) cannot silently miss a new file that drives C code."""

from pathlib import Path

import stages

HERE = Path(__file__).resolve().parent


def test_every_e2e_file_is_in_exactly_one_group():
    files = {p.name for p in HERE.glob("test_*.py")}
    native, python = set(stages.NATIVE), set(stages.PYTHON)
    assert not native & python, "in both groups: %s" % sorted(native & python)
    assert not files - native - python, "in neither group: %s" % sorted(files - native - python)
    assert not (native | python) - files, "listed but missing: %s" % sorted(
        (native | python) - files)


def test_every_entry_gives_a_reason():
    for table in (stages.NATIVE, stages.PYTHON):
        for name, reason in table.items():
            assert len(reason.split()) >= 3, "%s: no reason given" % name

