"""No import circle in ``kozel_env`` (nor through ``agents`` and back: issue 33.6, every kind of import counted),
and its layers stay apart (issue 14, "Done when"): the engine contract and shared pieces (``core``) import no game;
the dominoes and card engines never import each other; the engines import no PettingZoo or gymnasium; ``kozel_env``
never imports ``agents`` at module level. The graph is read from the source by :mod:`tests.import_graph`."""
from __future__ import annotations

import ast
from pathlib import Path

from tests.import_graph import cycles, import_cycles, import_graph, modules_of, packages_graph

PKG = Path(__file__).resolve().parents[1] / "kozel_env"
AGENTS = PKG.parent / "agents"


def test_kozel_env_has_no_import_cycle():
    """Counting every import: at module level, inside functions (lazy) and under ``if TYPE_CHECKING:``
    (issue 33.6: engine <-> invariants and engine <-> knowledge were loops of the last two kinds)."""
    found = import_cycles(PKG, "kozel_env", function_level=True, typing=True)
    assert not found, "import cycles in kozel_env (module-level, lazy or typing imports): " + "; ".join(
        " -> ".join(c) for c in found)


def test_no_import_cycle_through_kozel_env_and_agents_together():
    """kozel_env imports a few bots lazily (by name) and agents imports kozel_env: no loop may close across
    the two packages either, whatever kind of import each step is."""
    graph = packages_graph({"kozel_env": PKG, "agents": AGENTS}, function_level=True, typing=True)
    found = cycles(graph)
    assert not found, "import cycles across kozel_env and agents: " + "; ".join(" -> ".join(c) for c in found)


LAZY_UP = {("kozel_env.core.aec", "kozel_env.picture"), ("kozel_env.core.record", "kozel_env")}
"""The imports out of ``core``, both inside a function: the adapter's ``render_mode="rgb_array"`` asks the
picture dispatcher in ``render`` (an env that never draws never loads the drawing code), and the match record
reads the package's ``__version__``."""


def test_layers_import_only_downwards():
    graph = import_graph(PKG, "kozel_env", function_level=True)
    for mod, deps in graph.items():
        if mod.startswith("kozel_env.core"):
            bad = [d for d in deps if not d.startswith("kozel_env.core") and (mod, d) not in LAZY_UP]
            assert not bad, f"{mod} (the contract and shared pieces) imports {bad}"
        if mod.startswith("kozel_env.dominoes"):
            assert not [d for d in deps if d.startswith("kozel_env.cards")], f"{mod} imports a card engine"
        if mod.startswith("kozel_env.cards"):
            assert not [d for d in deps if d.startswith("kozel_env.dominoes")], f"{mod} imports a dominoes engine"
        for game in ("queens_and_jacks", "beat_or_discard", "six_of_spades"):
            if mod.startswith(f"kozel_env.cards.{game}"):
                other = [d for d in deps if d.startswith("kozel_env.cards.") and d != "kozel_env.cards.deck"
                         and not d.startswith(f"kozel_env.cards.{game}")]
                assert not other, f"{mod} imports another card game: {other}"


def _third_party(path: Path, function_level: bool) -> set:
    tree = ast.parse(path.read_text())
    nodes = ast.walk(tree) if function_level else tree.body
    names = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_engines_are_pure_rules_and_kozel_env_does_not_import_agents():
    for mod, path in modules_of(PKG, "kozel_env").items():
        if mod.split(".")[1:2] in (["core"], ["dominoes"], ["cards"]) and not mod.endswith(("aec", "picture")):
            bad = _third_party(path, True) & {"pettingzoo", "gymnasium", "torch"}
            assert not bad, f"the engine module {mod} imports {bad}"
        assert "agents" not in _third_party(path, False), f"{mod} imports agents at module level"
