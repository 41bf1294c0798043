"""benchmarks/web_load.py, briefly: a few bot tables for a few seconds over loopback, no errors."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("httpx", reason="needs the web extra: pip install -e '.[web]'")
SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "web_load.py"


def test_the_load_benchmark_runs_bot_tables_without_errors_and_reports_its_figures():
    out = subprocess.run([sys.executable, str(SCRIPT), "--tables", "3", "--duration", "3", "--bots", "random",
                          "--json"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    assert figures["errors"] == 0, out.stderr
    assert figures["requests"] > 20 and figures["deals"] >= 1
    assert 0 < figures["p50_ms"] <= figures["p95_ms"]
    assert figures["rss_start_mib"] > 0 and figures["rss_end_mib"] > 0
    rss = figures["rss_samples_mib"]       # the memory over the run: first after the warm-up, last at the end
    assert rss[0] == figures["rss_start_mib"] and rss[-1] == figures["rss_end_mib"]
