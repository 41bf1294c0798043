"""Every code block of README.md, CONTRIBUTING.md and docs/**/*.md runs (issue 31 item 3).

Each page's ```python blocks are executed in order in one namespace, and its ```bash blocks line by line in
a shell, all in a fresh working directory (where ``examples/`` and ``benchmarks/`` of the repository are
linked, so the commands read as they would from a clone). Comment lines right before a block say how it is
run:

* ``<!-- not-run: why -->`` -- not run; the reason is required (a block that installs packages, trains for
  minutes, is interactive, or that another test runs, which the reason names);
* ``<!-- needs-extra: EXTRA: module ... -->`` -- run only where those modules import; otherwise the page is
  reported skipped, naming the extra (after its other blocks have run).

Blocks in other languages (``text``, tables of output) are not code and are not run.
"""
from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUN_LANGS = {"python": "python", "py": "python", "bash": "bash", "sh": "bash", "shell": "bash",
             "console": "bash"}
FENCE = re.compile(r"^(\s*)(`{3,})\s*([\w+-]*)")
COMMENT = re.compile(r"^\s*<!--(.*?)-->\s*$")
NOT_RUN = re.compile(r"^\s*not-run\b:?\s*(.*)$", re.S)
NEEDS = re.compile(r"^\s*needs-extra:\s*([\w-]+)\s*:\s*(.+)$")
LINKED = ("examples", "benchmarks")
BASH_TIMEOUT = 60


@dataclass
class Block:
    page: str
    line: int
    lang: str
    code: str
    comments: list = field(default_factory=list)

    @property
    def not_run(self):
        """The reason given for not running the block, "" for a marker without one, None when it runs."""
        for c in self.comments:
            m = NOT_RUN.match(c)
            if m:
                return m.group(1).strip()
        return None

    @property
    def needs(self):
        """``(extra, [modules])`` of a needs-extra marker, or None."""
        for c in self.comments:
            m = NEEDS.match(c)
            if m:
                return m.group(1), m.group(2).split()
        return None


def pages() -> list:
    found = [ROOT / "README.md", ROOT / "CONTRIBUTING.md"] + sorted((ROOT / "docs").rglob("*.md"))
    return [p for p in found if p.is_file()]


def extract(text: str, page: str = "page") -> list:
    """The fenced code blocks of a markdown text, each with the HTML comment lines right before it."""
    lines = text.splitlines()
    blocks, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, ticks, lang = m.groups()
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(ticks):
            j += 1
        body = [x[len(indent):] if x.startswith(indent) else x.lstrip() for x in lines[i + 1:j]]
        comments, k = [], i - 1
        while k >= 0 and COMMENT.match(lines[k]):
            comments.insert(0, COMMENT.match(lines[k]).group(1).strip())
            k -= 1
        blocks.append(Block(page, i + 1, lang.lower(), "\n".join(body) + "\n", comments))
        i = j + 1
    return blocks


def _missing(needs) -> list:
    return [m for m in needs[1] if importlib.util.find_spec(m) is None] if needs else []


def run_bash(block: Block, cwd: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    for n, line in enumerate(block.code.splitlines()):
        cmd = line.split(" #")[0].strip() if not line.lstrip().startswith("#") else ""
        if not cmd:
            continue
        cmd = re.sub(r"^python\b", sys.executable, cmd)
        cmd = cmd.replace("| python ", f"| {sys.executable} ")
        out = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=cwd, env=env, capture_output=True, text=True,
                             timeout=BASH_TIMEOUT)
        assert out.returncode == 0, (f"{block.page}:{block.line + 1 + n}: `{line.strip()}` exited "
                                     f"{out.returncode}:\n{out.stdout[-2000:]}\n{out.stderr[-2000:]}")


def run_page(blocks: list, cwd: Path) -> list:
    """Run every runnable block of one page in order; returns the skipped blocks' messages."""
    namespace = {"__name__": "__snippets__"}
    skipped = []
    for b in blocks:
        lang = RUN_LANGS.get(b.lang)
        if lang is None or b.not_run is not None:
            continue
        missing = _missing(b.needs)
        if missing:
            skipped.append(f"{b.page}:{b.line} needs the {b.needs[0]} extra (no {', '.join(missing)})")
            continue
        if lang == "python":
            exec(compile(b.code, f"{b.page}:{b.line}", "exec"), namespace)
        else:
            run_bash(b, cwd)
    return skipped


def _rel(p: Path) -> str:
    return str(p.relative_to(ROOT))


PAGES = [_rel(p) for p in pages()]


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    for name in LINKED:
        (tmp_path / name).symlink_to(ROOT / name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("page", [p for p in PAGES if any(RUN_LANGS.get(b.lang) for b in
                                                          extract((ROOT / p).read_text(), p))])
def test_every_code_block_of_the_page_runs(page, workdir):
    skipped = run_page(extract((ROOT / page).read_text(), page), workdir)
    if skipped:
        pytest.skip("; ".join(skipped))


def test_every_not_run_marker_gives_its_reason():
    bad = [f"{b.page}:{b.line}" for p in PAGES for b in extract((ROOT / p).read_text(), p)
           if b.not_run is not None and len(b.not_run.split()) < 3]
    assert not bad, f"not-run markers without a reason (say why, in a few words): {bad}"


def test_an_included_file_is_marked_with_the_test_that_runs_it():
    """A block that only includes a file (``--8<--``) cannot run here; its marker names where it is run."""
    bad = [f"{b.page}:{b.line}" for p in PAGES for b in extract((ROOT / p).read_text(), p)
           if "--8<--" in b.code and RUN_LANGS.get(b.lang) and "test" not in (b.not_run or "")]
    assert not bad, f"snippet includes without a not-run marker naming their test: {bad}"


def test_the_readme_and_the_docs_have_code_that_runs():
    """Guards the extractor: the README's first loop and the guides' blocks are found and would run."""
    readme = extract((ROOT / "README.md").read_text(), "README.md")
    assert any(b.lang == "python" and b.not_run is None and "agent_iter" in b.code for b in readme)
    runnable = [b for p in PAGES for b in extract((ROOT / p).read_text(), p)
                if RUN_LANGS.get(b.lang) and b.not_run is None]
    assert len(runnable) >= 20 and any(b.lang == "bash" for b in runnable)


def test_a_failing_block_fails_the_page(workdir):
    text = "```python\nx = 1\n```\n\ntext\n\n```python\nassert x == 2, 'x is 1'\n```\n"
    with pytest.raises(AssertionError, match="x is 1"):
        run_page(extract(text), workdir)
    with pytest.raises(NameError):
        run_page(extract("```python\nmy_policy(1)\n```\n"), workdir)
    with pytest.raises(AssertionError, match="exited"):
        run_page(extract("```bash\npython -c 'raise SystemExit(3)'\n```\n"), workdir)


def test_markers_decide_what_runs(workdir):
    text = ("<!-- not-run: it would fail here -->\n```python\nraise RuntimeError\n```\n"
            "<!-- needs-extra: nothing: no_such_module_xyz -->\n```python\nraise RuntimeError\n```\n"
            "```text\nnot code\n```\n```python\ny = 3\n```\n")
    blocks = extract(text)
    assert [b.not_run for b in blocks] == ["it would fail here", None, None, None]
    assert run_page(blocks, workdir) == ["page:6 needs the nothing extra (no no_such_module_xyz)"]
    assert extract("<!-- not-run -->\n```bash\nx\n```\n")[0].not_run == ""
