"""Generate the documentation's pages and blocks from the code, so the docs never drift from it.

    python -m kozel_env.docs           # list the generated files and whether each is up to date
    python -m kozel_env.docs --write   # rewrite them
    python -m kozel_env.docs --check   # exit 1 if one is out of date (the tests run this)

Generated, and committed (the site, ``python -m mkdocs build --strict``, is built from them):

* ``docs/envs/<env>.md``, one page per environment of :data:`kozel_env.registry.ENVIRONMENTS`, from its
  module docstring, its rules config (every option: type, default, allowed values, the rule it implements),
  its reset options, its action ids and notation, its observation spec (the layout part by part), the keys
  of its results, its picture (``docs/images/<env>.png``), its version history and its rules page;
* between markers in hand-written pages: the games table (README.md, ``docs/envs/index.md``), the results
  and record schema (``docs/guides/records.md``, from ``kozel_env/core/results.py`` and ``record.py``), the
  games with a batched engine (``docs/guides/vector.md``), the bot ladder (``docs/guides/bots.md``, from
  ``agents/LADDER.md``), the trained agents' baselines (``docs/guides/trained-agents.md``) and the expert's
  research notes (``docs/research/expert.md``), both from ``agents/rl/BASELINES.md``.

``mkdocs.yml`` also loads this file as a hook (:func:`on_page_content`): the docstrings that mkdocstrings
renders use Sphinx roles (``:func:`x```), which it shows as written; the hook keeps only the code.
"""
from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import re
import sys
import textwrap
from pathlib import Path

from kozel_env.registry import ENVIRONMENTS, load  # absolute: mkdocs loads this file by path as its hook

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _markers(what: str) -> tuple:
    return (f"<!-- BEGIN GENERATED {what} (python -m kozel_env.docs --write) -->",
            f"<!-- END GENERATED {what} -->")


GAMES = _markers("GAMES TABLE")
SCHEMA = _markers("RESULTS AND RECORD")
LADDER = _markers("LADDER")
BASELINES = _markers("BASELINES")
EXPERT = _markers("EXPERT NOTES")
BATCHED = _markers("BATCHED ENGINES")
EXPERT_HEADING = "## The expert: search guided by the networks"
"""Where ``agents/rl/BASELINES.md`` turns from the baselines to the expert's research notes."""
WHY_ANCHOR = "#against-the-targets-and-why-some-fall-short"
"""The ladder's target column links here (``agents.ladder.WHY``): a heading of the baselines page."""


# ------------------------------------------------------------------ text helpers
def _rst_to_md(doc: str) -> str:
    """A docstring as markdown: double backticks become single, Sphinx roles plain code, a paragraph
    ending in ``::`` introduces a fenced code block (its indented lines)."""
    text = re.sub(r":(?:func|mod|class|meth|attr|data):`~?([^`]+)`", r"`\1`", doc.strip().replace("``", "`"))
    out, code = [], False
    for line in text.splitlines():
        if code and line.strip() and not line.startswith("    "):
            while out and not out[-1].strip():
                out.pop()
            out += ["```", ""]
            code = False
        if not code and line.endswith("::"):
            out += [line[:-1], "", "```text"]
            code = True
            continue
        if code and not out[-1].strip() and not out[-1].startswith("```") and not line.strip():
            continue
        if code and out[-1].startswith("```") and not line.strip():
            continue
        out.append(line[4:] if code else line)
    if code:
        out.append("```")
    return "\n".join(out)


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _docstring_paragraphs(name: str) -> tuple:
    """(title, [paragraphs]) of the env module's docstring, as markdown."""
    doc = _rst_to_md(load(name).__doc__ or "")
    doc = doc.replace('README "Infos, results and the match record"', "[Records and results](../guides/records.md)")
    doc = doc.replace("(see the README table)", "(the table under Observation)")
    title, _, body = doc.partition("\n\n")
    paras, cur, fence = [], [], False
    for line in body.splitlines():
        if line.startswith("```"):
            fence = not fence
        if not line.strip() and not fence:
            if cur:
                paras.append("\n".join(cur))
            cur = []
        else:
            cur.append(line)
    if cur:
        paras.append("\n".join(cur))
    return " ".join(title.split()), [p for p in paras if p.strip() != "Spec:"]


# ------------------------------------------------------------------ one page per environment
def _field_docs(cls) -> dict:
    """``{field: docstring}`` of a rules dataclass (the string literal after each field), base classes too."""
    out = {}
    for klass in reversed(cls.__mro__):
        if not dataclasses.is_dataclass(klass) or klass.__module__.startswith("builtins"):
            continue
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        except (OSError, TypeError):
            continue
        body = tree.body[0].body
        for a, b in zip(body, body[1:]):
            if isinstance(a, ast.AnnAssign) and isinstance(a.target, ast.Name) and isinstance(b, ast.Expr) \
                    and isinstance(b.value, ast.Constant) and isinstance(b.value.value, str):
                out[a.target.id] = b.value.value
    return out


_ITEM = re.compile(r"\b([DC]\d\.\d{1,2}(?:\s?[-\u2013]\s?\d{1,2})?)")
_SEED = re.compile(r"\b[Ss]eed (\d{3} §\d+(?:-\d+)?|\d{3}|\d\b)")


def _rule_of(doc: str) -> str:
    """The rule a field's docstring cites: its RULES items, else its seed sections; ``-`` for none."""
    items = list(dict.fromkeys(_ITEM.findall(doc)))
    if items:
        return ", ".join(items)
    seeds = list(dict.fromkeys(_SEED.findall(doc)))
    return ", ".join(f"seed {s}" for s in seeds) if seeds else "-"


def _type_name(t) -> str:
    """A field's annotation as text, ``X | None`` written ``X or None`` (a pipe would split the table cell)."""
    name = t if isinstance(t, str) else getattr(t, "__name__", str(t))
    return name.replace(" | ", " or ")


def _wide(table: str) -> str:
    """A table whose last column (its meaning) gets the room (``docs/stylesheets/extra.css``)."""
    return f'<div class="kz-wide" markdown>\n\n{table}\n\n</div>'


def options_table(name: str) -> str:
    """Every rules option of the env: type, default (this env's), allowed values, rule, meaning."""
    rules = load(name).env().unwrapped.game.rules
    checks = type(rules).checks()
    docs = _field_docs(type(rules))
    rows = ["| option | type | default | allowed | rule | meaning |", "|---|---|---|---|---|---|"]
    for f in dataclasses.fields(rules):
        if f.name not in checks:
            continue
        doc = _rst_to_md(docs.get(f.name, ""))
        rows.append(f"| `{f.name}` | `{_cell(_type_name(f.type))}` | `{getattr(rules, f.name)!r}` | "
                    f"{_cell(checks[f.name].allowed)} | {_rule_of(docs.get(f.name, ''))} | {_cell(doc)} |")
    return _wide("\n".join(rows))


def reset_options_table(name: str) -> str:
    game = load(name).env().unwrapped.game
    rows = ["| key | allowed |", "|---|---|"]
    rows += [f"| `{k}` | {_cell(c.allowed)} |" for k, c in game.setup_checks().items()]
    return "\n".join(rows)


def _first_decision(name: str) -> tuple:
    env = load(name).env(episode="deal")
    env.reset(seed=0)
    u = env.unwrapped
    legal = [int(a) for a in env.observe(env.agent_selection)["action_mask"].nonzero()[0]]
    return env, [(a, u.action_to_move(a)) for a in legal]


def actions_section(name: str) -> str:
    env, moves = _first_decision(name)
    g = env.unwrapped.game
    shown = moves[:12]
    lines = [f"`Discrete({g.num_actions})`: an id names a tile or card and a place, never a seat. "
             "`env.unwrapped.legal_moves()` lists the legal moves in notation, `move_to_action(text)` and "
             "`action_to_move(id)` translate (the notation is described above).", "",
             f"The legal moves at the first decision of `{name}.env(episode=\"deal\")` after `reset(seed=0)` "
             f"({env.agent_selection} to move; {len(moves)} legal"
             f"{', the first 12 shown' if len(moves) > 12 else ''}):", "",
             "| action id | move |", "|---:|---|"]
    lines += [f"| {a} | `{_cell(m)}` |" for a, m in shown]
    return "\n".join(lines)


def observation_section(name: str) -> str:
    g = load(name).env().unwrapped.game
    return "\n".join([
        f"Agents `player_0`..`player_{g.num_players - 1}`; `Discrete({g.num_actions})` actions; observation "
        f"`float32[{g.obs_spec.size}]` plus `action_mask` `int8[{g.num_actions}]`; `state()` "
        f"`float32[{g.oracle_spec.size}]` (the oracle view, for centralized critics only). Parts, in order "
        "(`game.obs_spec.offset(name, *index)` gives a position):", "", _wide(g.obs_spec.markdown())])


def _played_results(name: str) -> tuple:
    """The deal result and match result of one random single-deal episode (seed 0)."""
    import numpy as np

    env = load(name).env(episode="deal")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    deal = match = None
    for _agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        deal = (info.get("deals") or [deal])[-1]
        match = info.get("match", match)
        env.step(None if term or trunc else int(rng.choice(obs["action_mask"].nonzero()[0])))
    return deal, match


COMMON_DEAL = ("deal", "ended_by", "eggs", "winners", "losers", "written", "scores", "seat_points")
COMMON_MATCH = ("ended_by", "winners", "losers", "goats", "titles", "places", "scores", "deals", "returns")


def results_section(name: str) -> str:
    deal, match = _played_results(name)
    extra_deal = [k for k in deal if k not in COMMON_DEAL]
    extra_match = [k for k in match if k not in COMMON_MATCH]
    keys = lambda ks: ", ".join(f"`{k}`" for k in ks) or "none"
    return "\n".join([
        "Every game writes the common keys of [Records and results](../guides/records.md) "
        f"(deal: {keys(COMMON_DEAL)}; match: {keys(COMMON_MATCH)}). This game's own keys, as a played deal "
        "reports them (one random single-deal episode, `reset(seed=0)`):", "",
        f"* deal result (`infos[agent][\"deals\"][i]`): {keys(extra_deal)};",
        f"* match result (`infos[agent][\"match\"]`): {keys(extra_match)}."])


def env_page(name: str) -> str:
    """The whole page ``docs/envs/<name>.md``."""
    title, paras = _docstring_paragraphs(name)
    history = [p for p in paras if p.startswith("Version history")]
    body = [p for p in paras if not p.startswith("Version history")]
    env_title = title.split(":", 1)
    out = [f"# {env_title[0].strip()}", "", f"{env_title[1].strip() if len(env_title) > 1 else ''}", "",
           f"<!-- Generated by python -m kozel_env.docs --write from kozel_env/{name}.py, its rules config and "
           "its observation spec: edit those, not this page. -->", "",
           f"![{name}, a mid-game position, spectator view](../images/{name}.png)", "",
           f"The rules in full: [{name} rules](../rules/{name}.md).", "",
           "```python", f"from kozel_env import {name}", "", f"env = {name}.env(render_mode=\"ansi\")",
           "env.reset(seed=0)", "```", "",
           "## The environment", "", "\n\n".join(body), "",
           "## Options", "", "Rules options, given as `env(**options)` (checked when given; a bad value raises "
           "`InvalidOptionError` naming it and what is allowed). The default is this environment's.", "",
           options_table(name), "",
           "## Reset options", "", "`env.reset(seed, options={...})` sets up a chosen position:", "",
           reset_options_table(name), "",
           "## Actions and notation", "", actions_section(name), "",
           "## Observation", "", observation_section(name), "",
           "## Results", "", results_section(name), "",
           "## Version history", "", "\n\n".join(history) or "v0: first release.", "",
           "## Rules", "", f"[docs/rules/{name}.md](../rules/{name}.md) states every rule of this game, numbered "
           "as the code cites it, with the choices this library makes and the options that switch them.", ""]
    return "\n".join(out)


# ------------------------------------------------------------------ blocks in hand-written pages
def games_table(prefix: str) -> str:
    """The eight games, each linking to its page (``prefix``: the path from the page to ``docs/envs/``)."""
    rows = ["| environment | game | rules |", "|---|---|---|"]
    for name in ENVIRONMENTS:
        title, _ = _docstring_paragraphs(name)
        what = title.split(":", 1)[1].strip()
        game, _, source = what.rpartition(" (")
        rules_link = prefix.replace("envs/", "rules/") if prefix.endswith("envs/") else "../rules/"
        rows.append(f"| [`{name}`]({prefix}{name}.md) | {_cell(game.rstrip('.'))} | "
                    f"[{source.rstrip(').')}]({rules_link}{name}.md) |")
    return "\n".join(rows)


def schema_block() -> str:
    """What ``infos`` and the match record hold, from the modules that define them (one home)."""
    from kozel_env.core import record, results

    return "\n".join(["## Deal and match results (`infos`)", "", _rst_to_md(results.__doc__.split("\n\n", 1)[1]),
                      "", "## The match record", "", _rst_to_md(record.__doc__.split("\n\n", 1)[1])])


def _shift(text: str, top: int) -> str:
    """``text`` with its headings moved so that the highest is level ``top``."""
    lines = text.strip().splitlines()
    levels = [len(x) - len(x.lstrip("#")) for x in lines if x.startswith("#")]
    d = top - min(levels) if levels else 0
    return "\n".join(("#" * d + x if d > 0 else x[-d:]) if x.startswith("#") else x for x in lines)


def _agents_file(rel: str) -> str:
    path = ROOT / rel
    return path.read_text() if path.exists() else ""


def ladder_block() -> str:
    """``agents/LADDER.md``; its links to why a target is not met (to the baselines' section, whether written
    as ``#...`` or ``.../BASELINES.md#...``) point at that section of the trained agents' page."""
    text = _shift(_agents_file("agents/LADDER.md"), 2)
    return re.sub(rf"\]\((?:[^)\s]*BASELINES\.md)?{WHY_ANCHOR}\)", f"](trained-agents.md{WHY_ANCHOR})", text)


def baselines_block() -> str:
    text = _agents_file("agents/rl/BASELINES.md").split(EXPERT_HEADING)[0]
    return _shift(text, 2)


def expert_block() -> str:
    text = _agents_file("agents/rl/BASELINES.md")
    return _shift(EXPERT_HEADING + text.split(EXPERT_HEADING, 1)[1], 2) if EXPERT_HEADING in text else ""


def batched_block() -> str:
    """The games ``kozel_env.vector`` has a batched engine for (``vector.BATCHED``), linked to their pages."""
    from kozel_env.vector import BATCHED as names

    games = ", ".join(f"[`{n}`](../envs/{n}.md)" for n in ENVIRONMENTS if n in names)
    return f"Batched engines: {games} ({len(names)} of {len(ENVIRONMENTS)} games)."


BLOCKS = {
    "README.md": [(GAMES, lambda: games_table("docs/envs/"))],
    "docs/envs/index.md": [(GAMES, lambda: games_table(""))],
    "docs/guides/records.md": [(SCHEMA, schema_block)],
    "docs/guides/vector.md": [(BATCHED, batched_block)],
    "docs/guides/bots.md": [(LADDER, ladder_block)],
    "docs/guides/trained-agents.md": [(BASELINES, baselines_block)],
    "docs/research/expert.md": [(EXPERT, expert_block)],
}
"""Hand-written files and the generated blocks between their markers."""


def splice(text: str, markers: tuple, block: str, where: str = "") -> str:
    begin, end = markers
    if begin not in text or end not in text:
        raise SystemExit(f"{where or 'the page'} lacks the markers {begin!r} ... {end!r}")
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{begin}\n\n{block.strip()}\n\n{end}{tail}"


def expected() -> dict:
    """``{path relative to the root: the text it should have}`` for every generated file."""
    out = {f"docs/envs/{name}.md": env_page(name) for name in ENVIRONMENTS}
    for rel, blocks in BLOCKS.items():
        path = ROOT / rel
        text = path.read_text() if path.exists() else ""
        for markers, make in blocks:
            text = splice(text, markers, make(), rel)
        out[rel] = text
    return out


def stale() -> list:
    """Generated files that differ from what the code gives (missing ones included)."""
    return [rel for rel, text in expected().items()
            if not (ROOT / rel).exists() or (ROOT / rel).read_text() != text]


_ROLE = re.compile(r":(?:mod|class|func|meth|attr|data|exc|obj):(<code>)~?")


def on_page_content(html: str, **kwargs) -> str:
    """mkdocs hook: ``:func:<code>x</code>`` in a rendered page becomes ``<code>x</code>``."""
    return _ROLE.sub(r"\1", html)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    if args.write:
        for rel, text in expected().items():
            path = ROOT / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if not path.exists() or path.read_text() != text:
                path.write_text(text)
                print(f"wrote {rel}")
        return 0
    old = stale()
    if args.check:
        if old:
            print(f"out of date: {', '.join(old)}; run python -m kozel_env.docs --write", file=sys.stderr)
            return 1
        return 0
    for rel in expected():
        print(f"{rel}: {'out of date' if rel in old else 'up to date'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
