"""The import graph of a package (or of several packages together), read from its source (``ast``, nothing
imported), and its cycles.

    from tests.import_graph import import_cycles
    assert not import_cycles(Path("agents"), "agents", function_level=True, typing=True)

:func:`import_graph` maps every module of the package (``pkg.sub.mod``; a package's ``__init__`` is the
package's own name) to the modules of the package it imports: ``import pkg.x``, ``from pkg import x``
(``pkg.x`` where ``x`` is a submodule, else ``pkg`` itself), and relative imports resolved against the
importing module (``from .. import make_agent`` in ``pkg.rl.policy`` is ``pkg``). Imports come in three
kinds: module-level ones are those Python runs on import (including those under ``if``/``try`` at module
level); function-level ones run only when called (a lazy import); typing ones, under ``if TYPE_CHECKING:``,
never run. The module-level graph has the first kind only; ``function_level`` adds the second, ``typing`` the
third: a loop of lazy or typing-only imports does not fail at run time, but it is still two modules that
each need the other (a design circle), which is what the tests forbid. The implicit import of a parent
package (importing ``pkg.x`` first imports ``pkg``) is not an edge: it cannot close a loop of its own.

:func:`packages_graph` is the same over several packages at once (``{"kozel_env": dir, "agents": dir}``), so a
loop that leaves one package and comes back is seen too. :func:`import_cycles` / :func:`cycles` list the
cycles (one per strongly connected component, each as the loop of module names it follows), empty when
there is none.
"""
from __future__ import annotations

import ast
from pathlib import Path


def modules_of(package_dir: Path, package_name: str) -> dict:
    """``module name -> source path`` for every ``.py`` file under ``package_dir``."""
    package_dir = Path(package_dir)
    out = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = list(path.relative_to(package_dir).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join([package_name, *parts])] = path
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.Module) -> list:
    """``(node, when)`` for every import statement of ``tree``: ``when`` is ``"module"`` (runs on import),
    ``"function"`` (runs when a function is called) or ``"typing"`` (under ``if TYPE_CHECKING:``, never)."""
    found = []

    def visit(node: ast.AST, when: str) -> None:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append((node, when))
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and when == "module":
            when = "function"
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for stmt in node.body:
                visit(stmt, "typing")
            for stmt in node.orelse:
                visit(stmt, when)
            return
        for child in ast.iter_child_nodes(node):   # class bodies, if/try/with at module level run on import
            visit(child, when)

    visit(tree, "module")
    return found


def _targets(node: ast.AST, module: str, is_package: bool, known: dict) -> list:
    """The package's modules that one import statement of ``module`` names."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
        out = []
        for n in names:   # ``import pkg.a.b`` runs pkg.a.b (its parents are implicit)
            while n and n not in known:
                n = n.rpartition(".")[0]
            if n:
                out.append(n)
        return out
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[:len(base) - (node.level - 1)]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module or ""
    if source not in known:
        return []
    out = []
    for alias in node.names:
        sub = f"{source}.{alias.name}"
        out.append(sub if sub in known else source)
    return sorted(set(out))


def packages_graph(packages: dict, function_level: bool = False, typing: bool = False) -> dict:
    """``module -> set of the modules it imports`` over every package of ``packages`` (``name -> source
    folder``) at once: module-level imports; with ``function_level`` the imports inside functions too, with
    ``typing`` those under ``if TYPE_CHECKING:`` too. See the module doc."""
    known = {}
    for name, folder in packages.items():
        known.update(modules_of(folder, name))
    graph = {}
    for module, path in known.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        is_package = path.name == "__init__.py"
        edges = set()
        for node, when in _imports(tree):
            if when == "module" or (when == "function" and function_level) or (when == "typing" and typing):
                edges.update(t for t in _targets(node, module, is_package, known) if t != module)
        graph[module] = edges
    return graph


def import_graph(package_dir: Path, package_name: str, function_level: bool = False, typing: bool = False) -> dict:
    """``module -> set of the package's modules it imports`` (module-level imports; with
    ``function_level`` the imports inside functions too, with ``typing`` those under ``if TYPE_CHECKING:``
    too). See the module doc."""
    return packages_graph({package_name: package_dir}, function_level, typing)


def _strongly_connected(graph: dict) -> list:
    """Tarjan's strongly connected components (iterative), each a sorted list of modules."""
    index, low, on_stack, stack, comps = {}, {}, set(), [], []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    comps.append(sorted(comp))
    return comps


def _loop_through(graph: dict, comp: list) -> list:
    """One loop ``[a, b, ..., a]`` inside the strongly connected ``comp`` (shortest from its first module)."""
    members = set(comp)
    start = comp[0]
    prev = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(graph[v]):
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return [*reversed(path), start]
            if w in members and w not in prev:
                prev[w] = v
                queue.append(w)
    return comp  # pragma: no cover - a strongly connected component always has a loop


def cycles(graph: dict) -> list:
    """The cycles of ``graph``: one loop ``[a, b, ..., a]`` per strongly connected component of more than
    one module. Empty: no cycle."""
    return [_loop_through(graph, comp) for comp in _strongly_connected(graph) if len(comp) > 1]


def import_cycles(package_dir: Path, package_name: str, function_level: bool = False, typing: bool = False) -> list:
    """The import cycles of the package's module-level graph (with ``function_level`` the imports inside
    functions count too, with ``typing`` those under ``if TYPE_CHECKING:``): see :func:`cycles`."""
    return cycles(import_graph(package_dir, package_name, function_level, typing))
