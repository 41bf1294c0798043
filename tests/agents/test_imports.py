"""No import cycle in ``agents``: its module-level import graph (read from the source by
:mod:`tests.import_graph`) has none, and the agents are found through the name table, not by modules
registering themselves when imported (the loop base -> greedy / heuristic / pimc / random_agent -> base)."""
from __future__ import annotations

import textwrap
from pathlib import Path

from tests.import_graph import import_cycles, import_graph

AGENTS_DIR = Path(__file__).resolve().parents[2] / "agents"


def test_agents_has_no_module_level_import_cycle():
    cycles = import_cycles(AGENTS_DIR, "agents")
    assert not cycles, "import cycles in agents: " + "; ".join(" -> ".join(c) for c in cycles)


def test_no_cycle_either_counting_the_imports_inside_functions_and_the_typing_ones():
    """A lazy or ``TYPE_CHECKING`` import that closes a loop is still two modules needing each other
    (issue 33.6: agents.rl.imitation <-> agents.rl.ppo was one)."""
    cycles = import_cycles(AGENTS_DIR, "agents", function_level=True, typing=True)
    assert not cycles, "import cycles in agents (function-level and typing imports too): " + "; ".join(
        " -> ".join(c) for c in cycles)


def test_the_bot_modules_do_not_import_the_registry():
    graph = import_graph(AGENTS_DIR, "agents", function_level=True)
    for mod in ("agents.base", "agents.random_agent", "agents.heuristic", "agents.greedy", "agents.pimc",
                "agents.rl.policy"):
        assert "agents.registry" not in graph[mod], mod


def _package(tmp_path: Path, files: dict) -> Path:
    root = tmp_path / "pkg"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def test_the_graph_resolves_relative_imports_and_names_the_cycle(tmp_path):
    root = _package(tmp_path, {
        "__init__.py": "from .a import A\n",
        "a.py": "from . import b\nA = 1\n",
        "b.py": "from .sub.c import C\n",
        "sub/__init__.py": "",
        "sub/c.py": "from ..a import A\nC = 2\n",
        "lazy.py": "def f():\n    from . import a\n",
        "typed.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import A\n"
                    "def f():\n    if TYPE_CHECKING:\n        from . import b\n",
    })
    g = import_graph(root, "pkg")
    assert g["pkg"] == {"pkg.a"} and g["pkg.a"] == {"pkg.b"} and g["pkg.sub.c"] == {"pkg.a"}
    assert g["pkg.lazy"] == set() and g["pkg.typed"] == set()
    every = import_graph(root, "pkg", function_level=True)
    assert every["pkg.lazy"] == {"pkg.a"} and every["pkg.typed"] == set()
    assert import_graph(root, "pkg", function_level=True, typing=True)["pkg.typed"] == {"pkg.a", "pkg.b"}
    assert import_cycles(root, "pkg") == [["pkg.a", "pkg.b", "pkg.sub.c", "pkg.a"]]
    (root / "sub" / "c.py").write_text("def late():\n    from ..a import A\n    return A\n")
    assert import_cycles(root, "pkg") == []
    assert import_cycles(root, "pkg", function_level=True) == [["pkg.a", "pkg.b", "pkg.sub.c", "pkg.a"]]



def test_a_loop_closed_by_a_typing_import_is_a_cycle_when_typing_counts(tmp_path):
    root = _package(tmp_path, {
        "__init__.py": "",
        "engine.py": "from .helpers import check\n",
        "helpers.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .engine import State\n",
    })
    assert import_cycles(root, "pkg", function_level=True) == []
    assert import_cycles(root, "pkg", typing=True) == [["pkg.engine", "pkg.helpers", "pkg.engine"]]
