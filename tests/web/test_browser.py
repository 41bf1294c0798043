"""End to end in headless Chromium: a whole deal of every game played by clicking legal moves, the result sheet,
the record downloaded and replayed forward and back. Screenshots go to ``KOZEL_WEB_SHOTS`` (default: a tmp
dir)."""
from __future__ import annotations

import json
import os
import time

import pytest

from kozel_env.registry import ENVIRONMENTS

pytestmark = pytest.mark.browser

READY = """() => document.body.dataset.busy !== "1" && (document.getElementById("sheet").dataset.over === "1"
  || !document.getElementById("choose").hidden || document.querySelector(".piece.legal, button.move"))"""


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    d = os.environ.get("KOZEL_WEB_SHOTS") or str(tmp_path_factory.mktemp("shots"))
    os.makedirs(d, exist_ok=True)
    return d


def _play_deal(page, env_name: str, shots: str) -> int:
    """Click legal moves until the deal is over; once, click a piece that is not legal and read why."""
    clicks, illegal_seen, shot_mid = 0, False, False
    for _ in range(400):
        page.wait_for_function(READY, timeout=60_000)
        if page.get_attribute("#sheet", "data-over") == "1":
            return clicks
        if not page.is_hidden("#choose"):
            page.click("#choose .end-choice >> nth=0")
            clicks += 1
            continue
        bad = page.query_selector(".piece[data-legal='0']")
        if bad is not None and not illegal_seen:
            token = bad.get_attribute("data-token")
            bad.click()
            page.wait_for_selector("#message.error")
            text = page.inner_text("#message")
            assert "illegal move" in text and token in text, text
            illegal_seen = True
            continue
        if clicks == 3 and not shot_mid:
            page.screenshot(path=os.path.join(shots, f"{env_name}.png"), full_page=True)
            shot_mid = True
        target = page.query_selector(".piece.legal") or page.query_selector("button.move")
        target.click()
        clicks += 1
    raise AssertionError(f"{env_name}: the deal did not end in 400 clicks")


def _open_table(browser, server_url, env_name, episode="deal", seed="11", others=None, errors=None, **page_kw):
    """A new page on the play tab: the game, its other seats' bot (``others``), episode, seed and pace 0;
    ``errors`` collects the page's script errors."""
    page = browser.new_page(viewport={"width": 1200, "height": 640}, **page_kw)
    if errors is not None:
        page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server_url)
    page.select_option("#game", env_name)
    if others is not None:
        for sel in page.query_selector_all(".seat-choice:not([disabled])"):
            sel.select_option(others)
    page.eval_on_selector("#pace", "el => { el.value = 0; }")
    page.select_option("#episode", episode)
    page.fill("#seed", seed)
    return page


@pytest.mark.parametrize("env_name", list(ENVIRONMENTS))
def test_a_whole_deal_is_played_by_clicking_then_downloaded_and_replayed(env_name, server_url, browser, shots,
                                                                         tmp_path):
    t0 = time.monotonic()
    errors = []
    page = _open_table(browser, server_url, env_name, errors=errors, accept_downloads=True)
    page.click("#start")
    clicks = _play_deal(page, env_name, shots)
    assert clicks > 0
    # the result sheet: one deal, its written points per side, the end with winners and goats
    assert page.get_attribute("#sheet", "data-deals") == "1"
    assert page.locator("#sheet table.results tr").count() == 2
    assert "winners:" in page.inner_text(".match-end") and "goats:" in page.inner_text(".match-end")
    page.screenshot(path=os.path.join(shots, f"{env_name}-sheet.png"), full_page=True)
    # the record downloads, is this game's and finished
    with page.expect_download() as dl:
        page.click("#download")
    path = tmp_path / "record.json"
    dl.value.save_as(path)
    record = json.loads(path.read_text())
    assert record["env"] == env_name and record["finished"]
    moves = sum(1 for e in record["events"] if e["type"] == "move")
    # replayed move by move, forward and back
    page.click("#tab-replay")
    page.set_input_files("#replay-file", str(path))
    page.wait_for_selector("#replay-pos[data-step='0']")
    assert page.inner_text("#replay-pos") == f"move 0 of {moves}"
    for k in (1, 2, 3):
        page.click("#replay-next")
        page.wait_for_selector(f"#replay-pos[data-step='{k}']")
    page.click("#replay-prev")
    page.wait_for_selector("#replay-pos[data-step='2']")
    page.select_option("#replay-viewer", "1")
    page.wait_for_function("() => document.getElementById('text').textContent.includes('??')")
    page.click("#replay-end")
    page.wait_for_selector(f"#replay-pos[data-step='{moves}']")
    assert page.get_attribute("#sheet", "data-over") == "1"
    page.screenshot(path=os.path.join(shots, f"{env_name}-replay.png"), full_page=True)
    assert not errors, errors
    page.close()
    print(f"{env_name}: {clicks} clicks, {moves} moves, {time.monotonic() - t0:.1f} s")


def test_a_bots_table_is_watched_as_the_spectator_with_pause_and_step(server_url, browser, shots):
    page = browser.new_page(viewport={"width": 1200, "height": 640})
    page.goto(server_url)
    page.click("#tab-watch")
    page.select_option("#game", "donkey_v0")
    page.select_option("#watch-viewer", "")
    page.eval_on_selector("#pace", "el => { el.value = 50; }")
    page.click("#start")
    page.wait_for_function("() => document.querySelectorAll('#log li').length >= 4")
    page.click("#pause")
    page.wait_for_timeout(300)  # a move in flight lands
    n = page.locator("#log li").count()
    page.wait_for_timeout(500)
    assert page.locator("#log li").count() == n  # paused: nothing moves
    page.click("#step")
    page.wait_for_function(f"() => document.querySelectorAll('#log li').length === {n + 1}")
    assert page.locator("#others .seat").count() == 4  # the spectator sees all four hands, face up
    assert page.locator("#others .back").count() == 0 and "??" not in page.inner_text("#text")
    page.screenshot(path=os.path.join(shots, "watch-spectator.png"), full_page=True)
    page.close()


def test_the_hint_toggle_shows_the_networks_probabilities_and_the_experts_move(server_url, browser, shots):
    page = _open_table(browser, server_url, "queens_and_jacks_v0", seed="4")
    page.click("#start")
    page.wait_for_selector(".piece.legal")
    page.check("#hints")
    page.wait_for_function("() => document.getElementById('hintbox').textContent.includes('expert would play')",
                           timeout=60_000)
    text = page.inner_text("#hintbox")
    assert "network: " in text and "%" in text
    page.screenshot(path=os.path.join(shots, "hints.png"), full_page=True)
    page.close()


@pytest.mark.parametrize("env_name", list(ENVIRONMENTS))
def test_a_whole_match_is_played_by_clicking(env_name, server_url, browser):
    """Issue 32's "done when": a whole match of each game (episode "match", random bots for pace) played by
    clicking legal moves until the match is over; the sheet holds every deal, the end names winners and goats."""
    t0 = time.monotonic()
    errors = []
    page = _open_table(browser, server_url, env_name, episode="match", seed="3", others="random", errors=errors)
    page.click("#start")
    clicks = 0
    for _ in range(3000):
        page.wait_for_function(READY, timeout=60_000)
        if page.get_attribute("#sheet", "data-over") == "1":
            break
        if not page.is_hidden("#choose"):
            page.click("#choose .end-choice >> nth=0")
        else:
            (page.query_selector(".piece.legal") or page.query_selector("button.move")).click()
        clicks += 1
    else:
        raise AssertionError(f"{env_name}: the match did not end in 3000 clicks")
    deals = int(page.get_attribute("#sheet", "data-deals"))
    assert deals >= 1 and page.locator("#sheet table.results tr").count() == deals + 1
    end = page.inner_text(".match-end")
    assert "winners:" in end and "goats:" in end and "single_deal" not in end, end
    assert not errors, errors
    page.close()
    print(f"{env_name} match: {deals} deals, {clicks} clicks, {time.monotonic() - t0:.1f} s")
