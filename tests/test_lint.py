"""The tree stays clean under the project's ruff settings (``[tool.ruff]`` in pyproject.toml; issue 14, item 6).
ruff comes with the ``test`` extra; without it the check is skipped, with the reason."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_check_is_clean():
    pytest.importorskip("ruff", reason="ruff is in the test extra: pip install -e '.[test]'")
    out = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, "ruff check found:\n" + out.stdout[-4000:] + out.stderr[-2000:]
