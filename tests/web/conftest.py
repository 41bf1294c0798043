"""Fixtures of the web table's tests: an ASGI test client of a fresh app, and (for the browser tests) a real
server on a free loopback port and headless Chromium."""
from __future__ import annotations

import os
import subprocess
import sys
import warnings

import pytest

WEB_EXTRA = "needs the web extra: pip install -e '.[web]'"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


@pytest.fixture
def client():
    pytest.importorskip("starlette", reason=WEB_EXTRA)
    pytest.importorskip("httpx", reason=WEB_EXTRA)
    from agents.web.server import create_app

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # starlette's note on httpx versions
        from starlette.testclient import TestClient

        with TestClient(create_app(max_tables=8, ttl=600.0)) as c:
            yield c


@pytest.fixture(scope="module")
def server_url():
    """``python -m agents.web --port 0`` as a subprocess; its printed URL."""
    pytest.importorskip("uvicorn", reason=WEB_EXTRA)
    proc = subprocess.Popen([sys.executable, "-m", "agents.web", "--port", "0"], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        line = proc.stdout.readline()
        assert line.startswith("kozel web table: http://127.0.0.1:"), line
        yield line.split(": ", 1)[1].strip()
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture(scope="module")
def browser():
    if not os.path.exists(CHROMIUM):
        missing = f"no chromium at {CHROMIUM} (Debian: apt-get install chromium)"
        if os.environ.get("KOZEL_REQUIRE_BROWSER"):  # .ci/run installs it: there a missing browser is a failure
            pytest.fail(missing)
        pytest.skip(missing)
    pytest.importorskip("playwright", reason=WEB_EXTRA)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()
