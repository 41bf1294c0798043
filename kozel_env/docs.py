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


def splice(readme: str, block: str) -> str:
    if BEGIN not in readme or END not in readme:
        raise SystemExit(f"README.md lacks the markers {BEGIN!r} ... {END!r}")
    head, rest = readme.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return head + block + tail


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--readme", default=str(Path(__file__).resolve().parent.parent / "README.md"))
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
