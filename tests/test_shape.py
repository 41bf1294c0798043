"""The shape of the code stays what a newcomer can read (issue 14, item 1): in ``kozel_env`` and ``agents`` no
module is much over 600 lines and no function over 80, so each file answers one "where is X"."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_FILE_LINES = 630
MAX_FUNCTION_LINES = 80


def _modules():
    for pkg in ("kozel_env", "agents"):
        yield from sorted((ROOT / pkg).rglob("*.py"))


def test_no_module_over_about_600_lines():
    big = {str(p.relative_to(ROOT)): n for p in _modules() if (n := len(p.read_text().splitlines())) > MAX_FILE_LINES}
    assert not big, f"modules over {MAX_FILE_LINES} lines (split them by what they answer): {big}"


def test_no_function_over_80_lines():
    long = {}
    for p in _modules():
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > MAX_FUNCTION_LINES:
                    long[f"{p.relative_to(ROOT)}:{node.name}"] = n
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines: {long}"
