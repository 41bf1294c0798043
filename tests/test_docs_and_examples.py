"""The docs stay generated from the code, the README is the landing page, and every example script runs."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from kozel_env import docs, registry

ROOT = Path(__file__).resolve().parent.parent


def test_generated_docs_pages_are_up_to_date():
    """docs/envs/<env>.md and the generated blocks (games table, results schema, ladder, baselines, the
    expert's notes) are what ``python -m kozel_env.docs --write`` gives."""
    assert docs.stale() == [], "run: python -m kozel_env.docs --write"


def test_a_stale_page_is_reported(monkeypatch):
    monkeypatch.setattr(docs, "options_table", lambda name: "| changed |")
    assert set(docs.stale()) == {f"docs/envs/{name}.md" for name in registry.ENVIRONMENTS}


def test_every_environment_has_its_page_with_every_section():
    for name in registry.ENVIRONMENTS:
        text = (ROOT / "docs" / "envs" / f"{name}.md").read_text()
        for heading in ("## Options", "## Reset options", "## Actions and notation", "## Observation",
                        "## Results", "## Version history", "## Rules"):
            assert f"\n{heading}\n" in text, f"docs/envs/{name}.md lacks {heading}"
        assert f"](../images/{name}.png)" in text and (ROOT / "docs" / "images" / f"{name}.png").is_file()
        assert f"](../rules/{name}.md)" in text


def test_env_page_lists_every_option_with_its_default_and_allowed_values():
    rules = registry.make("donkey_v0").unwrapped.game.rules
    text = (ROOT / "docs" / "envs" / "donkey_v0.md").read_text()
    for option, check in type(rules).checks().items():
        row = next((r for r in text.splitlines() if r.startswith(f"| `{option}` |")), None)
        assert row, f"donkey_v0's page lacks the option {option}"
        assert f"`{getattr(rules, option)!r}`" in row and check.allowed.replace("|", "\\|") in row
    assert "| `max_doubles` | `int` | `4` | an int in 1..4 | D4.2 |" in text


def _nav_files(nav) -> list:
    out = []
    for item in nav:
        values = item.values() if isinstance(item, dict) else [item]
        for v in values:
            out += _nav_files(v) if isinstance(v, list) else [v]
    return out


def test_the_site_nav_lists_every_page():
    """Every page under docs/ is in mkdocs.yml's nav (mkdocs build --strict would refuse an omitted one),
    and every nav entry exists."""
    yaml = pytest.importorskip("yaml")
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)
    nav = _nav_files(config["nav"])
    pages = sorted(str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md"))
    assert sorted(set(nav)) == pages, f"missing from the nav: {sorted(set(pages) - set(nav))}; " \
                                      f"in the nav, no file: {sorted(set(nav) - set(pages))}"


def test_readme_is_a_landing_page_linking_every_game_and_the_docs():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 250
    for name in registry.ENVIRONMENTS:
        assert f"](docs/envs/{name}.md)" in text
    links = re.findall(r"\]\(((?:docs/|CONTRIBUTING)[^)#]*)", text)
    assert links and all((ROOT / link).is_file() for link in links), links
    assert "python -m mkdocs build --strict" in text


def test_readme_has_the_two_setup_commands():
    text = (ROOT / "README.md").read_text()
    assert "pip install -e . && python examples/demo.py" in text
    assert 'pip install -e ".[test,train]" && python -m pytest -q' in text


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    assert 'pip install -e ".[test,train]" && python -m pytest -q' in ci and "torch==2.13.0" in ci
    # the wheel check, outside the default suite, as a step of its own after it
    assert ci.index("python -m pytest -q -m wheel tests/test_wheel.py") > ci.index("&& python -m pytest -q")


def test_demo_plays_a_full_match_between_bots():
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "demo.py"), "--seed", "3"],
                         capture_output=True, text=True, check=True, timeout=120).stdout
    assert "plays 11" in out and "Match over after" in out and "the goats are pair" in out


def test_benchmark_script_runs():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "throughput.py"), "--seconds", "0.2",
                          "--env", "dominoes_v0"], capture_output=True, text=True, check=True,
                         timeout=120).stdout
    assert "dominoes_v0" in out and "AEC decisions/s" in out


def test_benchmark_script_reports_the_batched_engines_and_the_pettingzoo_floor():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "throughput.py"), "--seconds", "0.05",
                          "--env", "dominoes_v0", "queens_and_jacks_v0", "--skip-aec", "--batched", "--split",
                          "--floor", "--batch-sizes", "1", "8"], capture_output=True, text=True, check=True,
                         timeout=300).stdout
    assert "PettingZoo floor" in out and "step decisions/s" in out and "where a step's" in out
    rows = [line.split() for line in out.splitlines() if line.startswith(("dominoes_v0", "queens_and_jacks_v0"))]
    assert [(r[0], r[1]) for r in rows] == [("dominoes_v0", "1"), ("dominoes_v0", "8"),
                                           ("queens_and_jacks_v0", "1"), ("queens_and_jacks_v0", "8")]


def test_the_ladders_why_links_point_at_the_heading_of_the_trained_agents_page():
    """agents/LADDER.md links its unmet targets to a section of agents/rl/BASELINES.md; on the site the two
    are different pages, so the ladder's links must name the trained agents' page."""
    bots = (ROOT / "docs" / "guides" / "bots.md").read_text()
    links = re.findall(r"\[why\]\(([^)]*)\)", bots)
    assert links and set(links) == {f"trained-agents.md{docs.WHY_ANCHOR}"}
    headings = (ROOT / "docs" / "guides" / "trained-agents.md").read_text().splitlines()
    assert "### Against the targets, and why some fall short" in headings
