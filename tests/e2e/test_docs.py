"""Every command and snippet in README.md and docs/*.md runs.

The fenced code blocks of the pages are extracted and run, one test per block:

- ```python blocks: written to a file and run by a fresh interpreter of the repository's .venv
  (this test's own interpreter), with the repository as working directory; exit status 0.
- ```sh / ```bash blocks: run by ``bash -euo pipefail`` in a scratch directory that mirrors
  the repository (a symbolic link to every top-level entry except results/, so what a command
  writes under results/ stays out of the checkout), with HRPSIM_STATE_DIR a fresh directory
  (a block's `hrpsim up` starts servers of its own, stopped after the test); exit status 0.
- ```console blocks: the lines starting with ``$ `` are the commands, run as a sh block.
- ```xml blocks: parsed; a project (``<hrpsim-project>`` or ``<grxui>``) is read with
  ``hrpsim.project.load_project`` as if it sat in samples/projects/ (so its relative model and
  controller paths resolve as they do for the sample projects).
- Blocks without a language (output, diagrams, directory listings) are text, not run.

A block is marked by an HTML comment on the line right before its fence:

- ``<!-- doc-test: servers -->``: needs running servers: it runs with HRPSIM_NAMING and
  HRPSIM_STATE_DIR of the session's shared servers (conftest's ``servers`` fixture).
- ``<!-- doc-test: import (reason) -->`` (python): runs the block as a module that is not
  ``__main__`` (definitions and imports are checked; an ``if __name__ == "__main__":`` part,
  e.g. a controller that serves until SIGTERM, is not run).
- ``<!-- doc-test: skip (reason) -->``: not run; the reason is required and shown in the test's
  skip message (long-running, another host, interactive, a placeholder to fill in).

Beside the blocks, every relative markdown link ``[text](page.md#anchor)`` must name an
existing file and, with an anchor, a heading of that page (GitHub's anchor rules).
"""

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import REPO_ROOT, cli_env, stop_servers

PAGES = [REPO_ROOT / "README.md"] + sorted((REPO_ROOT / "docs").glob("*.md"))
RUN_LANGS = {"python", "sh", "bash", "console", "xml"}
MARKER = re.compile(r"^<!--\s*doc-test:\s*(skip|servers|import)\s*(?:\((.+)\))?\s*-->\s*$")
TIMEOUT_S = 240


class Block:
    """One fenced code block: page, line of its fence, language, text and its marker."""

    def __init__(self, page, line, lang, text, mode, reason):
        self.page, self.line, self.lang, self.text = page, line, lang, text
        self.mode, self.reason = mode, reason

    @property
    def id(self):
        return "%s:%d" % (self.page.relative_to(REPO_ROOT), self.line)


def extract(page):
    """The fenced blocks of a markdown page, with the doc-test marker before each."""
    lines = page.read_text().splitlines()
    blocks, i = [], 0
    while i < len(lines):
        m = re.match(r"^```(\w*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        assert j < len(lines), "%s:%d: unclosed code block" % (page, i + 1)
        mode = reason = None
        if i > 0 and lines[i - 1].startswith("<!--"):
            mm = MARKER.match(lines[i - 1])
            assert mm, "%s:%d: malformed doc-test marker %r" % (page, i, lines[i - 1])
            mode, reason = mm.group(1), mm.group(2)
            assert mode != "skip" or reason, "%s:%d: a skip needs a reason" % (page, i)
        blocks.append(Block(page, i + 1, m.group(1), "\n".join(lines[i + 1:j]) + "\n",
                            mode, reason))
        i = j + 1
    return blocks


BLOCKS = [b for p in PAGES for b in extract(p)]
RUN_BLOCKS = [b for b in BLOCKS if b.lang]


def test_every_block_has_a_known_language():
    unknown = ["%s (%s)" % (b.id, b.lang) for b in RUN_BLOCKS if b.lang not in RUN_LANGS]
    assert not unknown, "blocks this test cannot run; add a runner or drop the language: %s" \
        % unknown


def test_the_pages_have_runnable_blocks():
    # the extraction itself can fail silently (a changed fence style): the README alone has
    # a Python example and the first project run
    readme = [b for b in RUN_BLOCKS if b.page.name == "README.md"]
    assert {"python", "sh"} <= {b.lang for b in readme}, [b.id for b in readme]
    assert sum(b.mode != "skip" for b in RUN_BLOCKS) >= 12


def _slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to '-'."""
    s = re.sub(r"[`*_]", "", heading.strip().lower())
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def _anchors(page):
    text = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.S | re.M)
    return {_slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, flags=re.M)}


def test_links_point_at_existing_pages_and_sections():
    bad = []
    for page in PAGES:
        text = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.S | re.M)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"\w+://", target):
                continue
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            if not dest.exists():
                bad.append("%s: %s (no such file)" % (page.name, target))
            elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
                bad.append("%s: %s (no such section)" % (page.name, target))
    assert not bad, bad


def _mirror(tmp_path):
    """A directory whose entries link to the repository's top-level entries (not results/)."""
    root = tmp_path / "repo"
    root.mkdir()
    for entry in REPO_ROOT.iterdir():
        if entry.name not in ("results", ".git"):
            (root / entry.name).symlink_to(entry)
    return root


def _env(block, request, tmp_path):
    env = cli_env()
    if block.mode == "servers":
        servers = request.getfixturevalue("servers")
        env["HRPSIM_NAMING"] = servers.corbaloc
        env["HRPSIM_STATE_DIR"] = str(servers.state_dir)
    else:
        state = tmp_path / "state"
        env["HRPSIM_STATE_DIR"] = str(state)
        request.addfinalizer(lambda: state.exists() and stop_servers(state))
    return env


def _check(proc, block):
    assert proc.returncode == 0, "%s (%s block) failed: exit %s\n--- block ---\n%s" \
        "--- stdout ---\n%s--- stderr ---\n%s" % (block.id, block.lang, proc.returncode,
                                                 block.text, proc.stdout, proc.stderr)


def _run_python(block, env, tmp_path):
    script = tmp_path / "block.py"
    script.write_text(block.text)
    if block.mode == "import":
        argv = [sys.executable, "-c", "import runpy, sys; runpy.run_path(sys.argv[1], "
                "run_name='doc_block')", str(script)]
    else:
        argv = [sys.executable, str(script)]
    return subprocess.run(argv, cwd=str(REPO_ROOT), env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=TIMEOUT_S)


def _run_shell(block, env, tmp_path):
    text = block.text
    if block.lang == "console":
        text = "".join(ln[2:] + "\n" for ln in text.splitlines() if ln.startswith("$ "))
    return subprocess.run(["bash", "-euo", "pipefail", "-c", text], cwd=str(_mirror(tmp_path)),
                          env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          timeout=TIMEOUT_S)


def _check_xml(block, tmp_path):
    root = ET.fromstring(block.text)            # well-formed, or a ParseError naming the line
    if root.tag not in ("hrpsim-project", "grxui"):
        return
    from hrpsim.project import load_project
    projects = tmp_path / "projects"            # beside models/ and controllers/, as samples/
    projects.mkdir()
    for name in ("models", "controllers"):
        (tmp_path / name).symlink_to(REPO_ROOT / "samples" / name)
    path = projects / "doc_example.xml"
    path.write_text(block.text)
    project = load_project(path)
    assert project.models, "%s: the project has no models" % block.id


@pytest.mark.parametrize("block", RUN_BLOCKS, ids=[b.id for b in RUN_BLOCKS])
def test_block_runs(block, request, tmp_path):
    if block.lang not in RUN_LANGS:
        pytest.fail("unknown language %r (see test_every_block_has_a_known_language)"
                    % block.lang)
    if block.mode == "skip":
        pytest.skip("doc-test: skip (%s)" % block.reason)
    if block.lang == "xml":
        _check_xml(block, tmp_path)
        return
    env = _env(block, request, tmp_path)
    if block.lang == "python":
        _check(_run_python(block, env, tmp_path), block)
    else:
        _check(_run_shell(block, env, tmp_path), block)


def test_projects_md_counts_the_squats_camera_frames_as_a_run_stores_them():
    """projects.md's figure for the squat's head cameras: a run stores a frame of each camera
    every 1/frameRate s from 0 to the end time, both ends included (it said 226; a run with
    --cameras stores 227: 151 colour frames at 30 Hz and 76 depth frames at 15 Hz)."""
    text = (REPO_ROOT / "docs" / "projects.md").read_text()
    said = int(re.search(r"two head cameras, (\d+) frames in 5 s", text).group(1))
    wrl = (REPO_ROOT / "samples" / "models" / "humanoid" / "humanoid.wrl").read_text()
    rates = [float(r) for r in re.findall(r"VisionSensor \{[^}]*?frameRate\s+([\d.]+)", wrl)]
    end = float(ET.parse(REPO_ROOT / "samples" / "projects" / "humanoid_squat.xml")
                .find("simulation").get("endTime"))
    assert sorted(rates) == [15.0, 30.0] and end == 5.0
    assert said == sum(int(round(end * r)) + 1 for r in rates) == 227
