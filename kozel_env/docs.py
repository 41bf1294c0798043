"""Generate the README's per-environment tables from the code (the layout is defined once, in each game's
``obs_spec``; the README never drifts from it).

    python -m kozel_env.docs           # print the generated block
    python -m kozel_env.docs --write   # rewrite the block between the markers in README.md
    python -m kozel_env.docs --check   # exit 1 if README.md is out of date (the tests run this)
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .registry import ENVIRONMENTS, load

BEGIN = "<!-- BEGIN GENERATED ENV TABLES (python -m kozel_env.docs --write) -->"
END = "<!-- END GENERATED ENV TABLES -->"
SCHEMA_BEGIN = "<!-- BEGIN GENERATED RESULTS AND RECORD (from kozel_env/core/results.py and record.py) -->"
SCHEMA_END = "<!-- END GENERATED RESULTS AND RECORD -->"
AGENTS_BEGIN = "<!-- BEGIN GENERATED AGENT TABLES (from agents/LADDER.md and agents/rl/BASELINES.md) -->"
AGENTS_END = "<!-- END GENERATED AGENT TABLES -->"
ROOT = Path(__file__).resolve().parent.parent


def env_section(name: str) -> str:
    mod = load(name)
    env = mod.env()
    g = env.unwrapped.game
    doc = (mod.__doc__ or "").strip().replace("``", "`")
    title, _, body = doc.partition("\n\n")
    lines = [f"### {title.replace(chr(10), ' ')}", "", body.strip(), "",
             f"#### `{name}` observation", "",
             f"Agents `player_0`..`player_{g.num_players - 1}`; `Discrete({g.num_actions})` actions; "
             f"observation `float32[{g.obs_spec.size}]` plus `action_mask` `int8[{g.num_actions}]`; "
             f"`state()` `float32[{g.oracle_spec.size}]`. Parts, in order:", "", g.obs_spec.markdown(), ""]
    return "\n".join(lines)


def generate() -> str:
    return "\n".join([BEGIN, ""] + [env_section(n) for n in ENVIRONMENTS] + [END])


def _rst_to_md(doc: str) -> str:
    """A module docstring as README markdown: double backticks become single, Sphinx roles plain code, a
    paragraph ending in ``::`` introduces a fenced code block (its indented lines)."""
    import re

    text = re.sub(r":(?:func|mod|class|meth|attr):`~?([^`]+)`", r"`\1`", doc.strip().replace("``", "`"))
    out, code = [], False
    for line in text.splitlines():
        if code and line.strip() and not line.startswith("    "):
            while out and not out[-1].strip():
                out.pop()
            out += ["```", ""]
            code = False
        if not code and line.endswith("::"):
            out += [line[:-1], "", "```"]
            code = True
            continue
        if code and not out[-1].strip() and out[-1] != "```" and not line.strip():
            continue
        if code and out[-1] == "```" and not line.strip():
            continue
        out.append(line[4:] if code else line)
    if code:
        out.append("```")
    return "\n".join(out)


def schema_block() -> str:
    """What ``infos`` and the match record hold, from the modules that define them (one home)."""
    from .core import record, results

    return "\n".join([SCHEMA_BEGIN, "", "#### Deal and match results (`infos`)", "",
                      _rst_to_md(results.__doc__.split("\n\n", 1)[1]), "", "#### The match record", "",
                      _rst_to_md(record.__doc__.split("\n\n", 1)[1]), "", SCHEMA_END])


def agents_block() -> str:
    """The bot ladder and the trained agents' baselines, copied from the files the measuring scripts write
    (agents/LADDER.md by ``python -m agents.ladder``, agents/rl/BASELINES.md by
    ``examples/reproduce_baselines.py``), headings moved down under the README's section."""
    parts = [AGENTS_BEGIN, ""]
    for rel in ("agents/LADDER.md", "agents/rl/BASELINES.md"):
        path = ROOT / rel
        if path.exists():
            lines = path.read_text().strip().splitlines()
            levels = [len(x) - len(x.lstrip("#")) for x in lines if x.startswith("#")]
            shift = "#" * (3 - min(levels)) if levels and min(levels) < 3 else ""
            parts.append("\n".join(shift + x if x.startswith("#") else x for x in lines))
            parts.append("")
    parts.append(AGENTS_END)
    return "\n".join(parts)


def _splice_one(readme: str, begin: str, end: str, block: str) -> str:
    if begin not in readme or end not in readme:
        raise SystemExit(f"README.md lacks the markers {begin!r} ... {end!r}")
    head, rest = readme.split(begin, 1)
    _, tail = rest.split(end, 1)
    return head + block + tail


def splice(readme: str, block: str) -> str:
    """README with the env block ``block`` and the agents block regenerated."""
    readme = _splice_one(readme, BEGIN, END, block)
    readme = _splice_one(readme, SCHEMA_BEGIN, SCHEMA_END, schema_block())
    return _splice_one(readme, AGENTS_BEGIN, AGENTS_END, agents_block())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--readme", default=str(ROOT / "README.md"))
    args = ap.parse_args(argv)
    block = generate()
    if not (args.write or args.check):
        print(block)
        return 0
    path = Path(args.readme)
    text = path.read_text()
    new = splice(text, block)
    if args.check:
        if new != text:
            print("README.md is out of date: run python -m kozel_env.docs --write", file=sys.stderr)
            return 1
        return 0
    path.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
