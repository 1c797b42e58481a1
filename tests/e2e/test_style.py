"""The tree keeps the line-length rule of the style guide: no line of a tracked source file
(C, C++, Python, JavaScript, IDL, CMake, shell) is longer than 100 columns. Generated and
vendored files are not tracked, so `git ls-files` gives exactly what the team writes."""

import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PATTERNS = ["*.c", "*.h", "*.cpp", "*.py", "*.js", "*.idl", "*.sh", "*.cmake",
            "CMakeLists.txt", ".ci/run"]
LIMIT = 100


def tracked_sources():
    out = subprocess.run(["git", "ls-files", "--"] + PATTERNS, cwd=REPO, check=True,
                         capture_output=True, text=True).stdout
    return [REPO / p for p in out.split()]


def test_the_listing_covers_every_kind_of_source():
    # the check below is only as good as the listing: each kind must be found
    names = [p.name for p in tracked_sources()]
    for suffix in (".c", ".h", ".cpp", ".py", ".js", ".idl", ".sh"):
        assert any(n.endswith(suffix) for n in names), suffix
    assert "CMakeLists.txt" in names


def test_no_source_line_is_longer_than_100_columns():
    long_lines = []
    for path in tracked_sources():
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            if len(line) > LIMIT:
                long_lines.append("%s:%d: %d columns" % (path.relative_to(REPO), number,
                                                         len(line)))
    assert not long_lines, "lines past %d columns:\n%s" % (LIMIT, "\n".join(long_lines))
