"""The documentation site builds in strict mode (issue 31 item 1): ``python -m mkdocs build --strict``, the one
command of the README, fails on a broken link, a missing page or any warning; this test runs it (about 5 s)
where the ``docs`` extra is installed, and reports the extra as missing otherwise."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kozel_env.registry import ENVIRONMENTS

ROOT = Path(__file__).resolve().parents[2]
DOCS_MODULES = ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python")


def _missing() -> list:
    out = []
    for name in DOCS_MODULES:
        try:
            found = importlib.util.find_spec(name) is not None
        except ModuleNotFoundError:   # a dotted name whose parent is missing
            found = False
        if not found:
            out.append(name)
    return out


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    missing = _missing()
    if missing:
        pytest.skip(f"the docs extra is not installed (no {', '.join(missing)}): pip install -e '.[docs]'")
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    p = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)], cwd=ROOT,
                       env=env, capture_output=True, text=True, timeout=300)
    return p, out


def test_the_site_builds_in_strict_mode_without_a_warning(site):
    p, _ = site
    assert p.returncode == 0, f"mkdocs build --strict failed:\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    warnings = [line for line in (p.stdout + p.stderr).splitlines() if line.startswith(("WARNING", "ERROR"))]
    assert not warnings, warnings


def test_the_site_has_a_page_with_its_picture_for_every_environment(site):
    _, out = site
    for name in ENVIRONMENTS:
        page = out / "envs" / name / "index.html"
        assert page.is_file(), f"no page for {name}"
        html = page.read_text()
        assert f"{name}.png" in html and (out / "images" / f"{name}.png").is_file()
        for section in ("Options", "Reset options", "Actions and notation", "Observation", "Results",
                        "Version history", "Rules"):
            assert f">{section}<" in html, f"{name}'s page lacks {section}"


def test_the_api_reference_is_rendered_from_the_docstrings(site):
    _, out = site
    html = (out / "reference" / "kozel_env" / "index.html").read_text()
    # mkdocstrings renders a docstring of the registry (a heading per object, its text below it)
    assert "kozel_env.registry" in html and "doc doc-heading" in html


def test_mkdocs_yml_fails_on_every_kind_of_problem():
    """Strict mode, and the link checks raised to warnings (which strict turns into failures)."""
    yaml = pytest.importorskip("yaml", reason="the docs extra is not installed: pip install -e '.[docs]'")
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)
    assert config["strict"] == "true"
    assert set(config["validation"].values()) == {"warn"}
    assert {"omitted_files", "unrecognized_links", "anchors", "not_found"} <= set(config["validation"])
