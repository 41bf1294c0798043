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
    yaml = pytest.importorskip("yaml", reason="the docs extra is not installed: pip install -e '.[docs]'")
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


TEST_COMMAND = 'pip install -e ".[test,train]" && python -m pytest -q -n auto -rs'


def _bash_lines(text: str) -> list:
    """The lines of the ```bash blocks of a markdown text."""
    return [line.strip() for block in re.findall(r"```bash\n(.*?)```", text, re.S) for line in block.splitlines()]


def test_readme_has_the_two_setup_commands_with_their_measured_times():
    text = (ROOT / "README.md").read_text()
    lines = _bash_lines(text)
    assert "pip install -e . && python examples/demo.py" in lines and TEST_COMMAND in lines
    setup = text[text.index("## Set-up: two commands"):text.index("## A first loop")]
    # the install and demo times, the suite's time, the smoke selection's time
    assert re.search(r"install \d+ s\b.*demo \d+ s", setup, re.S), "the set-up command's measured times"
    assert re.search(r"\d[\d.]* minutes on 2 cores, \d+ s measured", setup), "the suite's measured time"
    assert re.search(r"pytest -m smoke.*?\d+ tests in \d+ s", setup, re.S), "the smoke selection's time"


def test_readme_and_the_docs_home_give_the_same_test_command():
    for rel in ("README.md", "docs/index.md"):
        assert TEST_COMMAND in _bash_lines((ROOT / rel).read_text()), rel


def test_readmes_smoke_count_is_the_smoke_selections():
    from tests import test_smoke

    count = sum(len(test_smoke.NAMES) for name in dir(test_smoke) if name.startswith("test_"))
    assert set(test_smoke.NAMES) == set(registry.ENVIRONMENTS)
    assert f"{count} tests in" in (ROOT / "README.md").read_text(), f"the smoke selection has {count} tests"


def test_readme_says_which_extra_enables_which_tests():
    """The table of extras names every extra of pyproject.toml (``agents`` and ``dev`` inside others' rows)."""
    tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml needs Python 3.11 (tomllib)")
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    text = (ROOT / "README.md").read_text()
    table = text[text.index("[start:extras]"):text.index("[end:extras]")]
    missing = [e for e in extras if f"`{e}`" not in table]
    assert not missing, f"extras missing from the README's table: {missing}"
    assert "--8<-- \"README.md:extras\"" in (ROOT / "docs" / "index.md").read_text()


def test_readme_says_which_infos_each_library_needs():
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Which `infos` each RL library needs"):text.index("## Where to go next")]
    for entry in ("gymnasium.make(\"kozel/<env>\")", "PettingZooEnv(", "PettingZooWrapper(", "KozelMultiAgentEnv",
                  "SingleAgentRLlibEnv", "pyspiel.load_game("):
        assert entry in section, entry


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    assert TEST_COMMAND in ci.splitlines() and "torch==2.13.0" in ci
    # the wheel check, outside the default suite, as a step of its own after it
    assert ci.index("python -m pytest -q -m wheel tests/test_wheel.py") > ci.index(TEST_COMMAND)


def test_ci_builds_the_site_in_strict_mode():
    """Issue 31: the docs site is built in CI in strict mode -- by the command itself, or by
    tests/docs/test_site.py in the default suite, which runs only where the docs extra is installed."""
    ci = (ROOT / ".ci" / "run").read_text()
    installs_docs = re.search(r'pip install[^\n]*-e "\.\[[^\]"]*\bdocs\b', ci)
    assert "python -m mkdocs build --strict" in ci or installs_docs, \
        ".ci/run neither runs python -m mkdocs build --strict nor installs the docs extra"


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
