"""The TV view fits one screen: at 1280x720, 1920x1080 and 3840x2160, every player row and the
whole ticker ("Last events") are on screen with no scroll, the title stays on one line, and
the totals form one column whatever the width of the "if the game ended now" text. Both
games seat at most 4 (domain/penumbra/ruleset.py MAX_PLAYERS, domain/trickerion/state.py), so
the largest table tested is 4 players (the Trickerion example), beside 3 (the Penumbra one).
Also: the QR code on the TV and kiosk views encodes the game's phone view, checked module by
module against the matrix segno builds for the expected URL."""

from __future__ import annotations

import re
from typing import Any

import pytest
import segno
from playwright.async_api import Browser, expect

from tests.web.browser import GAME, SIZES, TV_SCREENS, open_page, seeded
from tests.web.builders import example
from tests.web.conftest import Stack

pytestmark = [pytest.mark.browser, pytest.mark.redis]

TRICKERION = ("trickerion-4p-dark-alley-academy", "tr-4p-dark-alley-academy", 150)
PENUMBRA = ("penumbra-3p", GAME, 60)

LAYOUT = """() => {
  const box = (el) => { const r = el.getBoundingClientRect(); return {top: r.top, bottom: r.bottom,
    left: r.left, right: r.right, height: r.height}; };
  const title = document.getElementById('tv-title');
  const ol = document.getElementById('tv-events');
  return {
    height: innerHeight, width: innerWidth,
    scrollHeight: document.documentElement.scrollHeight,
    scrollWidth: document.documentElement.scrollWidth,
    title: {box: box(title), font: parseFloat(getComputedStyle(title).fontSize),
            white: getComputedStyle(title).whiteSpace},
    idCut: (() => { const id = document.getElementById('tv-id');
                     return id.scrollWidth > id.clientWidth + 1; })(),
    players: [...document.querySelectorAll('.tv-player')].map(box),
    totals: [...document.querySelectorAll('.tv-total')].map(box),
    provs: [...document.querySelectorAll('.tv-prov')].map((e) => e.getBoundingClientRect().width),
    ticker: box(document.querySelector('.tv-ticker')),
    list: box(ol),
    items: [...ol.children].map(box),
    clipped: [...ol.children].filter((li) => li.scrollHeight > li.clientHeight + 1).length,
    itemFont: ol.children.length ? parseFloat(getComputedStyle(ol).fontSize) : 0,
    qr: box(document.getElementById('tv-qr-code')),
  };
}"""


async def publish(stack: Stack, name: str, game_id: str, upto: int) -> None:
    response = await stack.post(list(example(name)[:upto]))
    assert response.status_code == 201, response.text
    await stack.wait_projected(game_id, upto)


@pytest.mark.parametrize("screen", TV_SCREENS)
@pytest.mark.parametrize("table", [TRICKERION, PENUMBRA], ids=["4-players", "3-players"])
async def test_tv_fits_the_screen_with_players_and_ticker(
    stack: Stack, browser: Browser, screen: str, table: tuple[str, str, int]
) -> None:
    name, game_id, upto = table
    await publish(stack, name, game_id, upto)
    page = await open_page(browser, f"{stack.url}/tv/{game_id}?lang=en", screen)
    height = SIZES[screen]["height"]
    players = len(example(name)[0].payload.players)  # type: ignore[attr-defined]
    await expect(page.locator(".tv-player")).to_have_count(players)
    # the ticker waits for the timeline (a replay in the worker pool): slow on a busy machine
    await expect(page.locator("#tv-events li").first).to_be_visible(timeout=30_000)
    await expect(page.locator("#tv-qr-code")).to_have_js_property("complete", True)
    await page.wait_for_timeout(700)  # the rank animation (600 ms) has settled
    got: dict[str, Any] = await page.evaluate(LAYOUT)
    assert got["scrollHeight"] <= got["height"], got  # no vertical scroll
    assert got["scrollWidth"] <= got["width"], got
    title = got["title"]
    assert title["white"] == "nowrap"
    assert title["box"]["height"] < 2 * title["font"], title  # one line, never wrapped
    if screen != "720p":
        assert not got["idCut"]  # the game's name gives way before the id
    assert all(p["bottom"] <= got["height"] for p in got["players"]), got["players"]
    assert got["ticker"]["top"] >= got["players"][-1]["bottom"]
    assert got["ticker"]["bottom"] <= got["height"], got["ticker"]  # "Last events" on screen
    assert len(got["items"]) >= 3, got["items"]  # at least three events shown ...
    assert all(i["bottom"] <= got["list"]["bottom"] + 1 for i in got["items"])  # ... none cut
    assert got["clipped"] == 0
    assert all(i["height"] >= 1.2 * got["itemFont"] for i in got["items"]), got["items"]
    rights = {round(t["right"]) for t in got["totals"]}
    assert len(rights) == 1, got["totals"]  # one column of totals
    if len({round(w) for w in got["provs"]}) > 1:  # the texts differ, the column holds
        lefts = {round(t["left"]) for t in got["totals"]}
        assert len(lefts) == 1, got["totals"]
    assert got["qr"]["bottom"] <= got["height"]
    assert got["qr"]["height"] >= 0.18 * height, got["qr"]  # room-sized
    await page.screenshot(path=f"/tmp/scoreledger-screenshots/tv-fit-{screen}-{players}.png")
    assert page.errors == []  # type: ignore[attr-defined]
    await page.context.close()


def modules(svg: str) -> list[list[bool]]:
    """The dark modules of segno's SVG path (`M x y` then `h n` runs and `m dx dy` moves)."""
    size = int(re.search(r'viewBox="0 0 (\d+) (\d+)"', svg).group(1))  # type: ignore[union-attr]
    grid = [[False] * size for _ in range(size)]
    path = re.search(r'<path[^>]*stroke="#000"[^>]*d="([^"]+)"', svg).group(1)  # type: ignore[union-attr]
    x = y = 0.0
    for op, a, b in re.findall(r"([Mmh])(-?[\d.]+)(?:[ ,](-?[\d.]+))?", path):
        if op == "M":
            x, y = float(a), float(b)
        elif op == "m":
            x, y = x + float(a), y + float(b)
        else:
            for col in range(int(x), int(x + float(a))):
                grid[int(y)][col] = True
            x += float(a)
    return grid


async def test_qr_code_encodes_the_phone_view_of_the_game(stack: Stack, browser: Browser) -> None:
    await seeded(stack, 20)
    response = await stack.client.get(f"/games/{GAME}/qr.svg")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("image/svg+xml")
    expected_url = f"{stack.url}/games/{GAME}"
    assert response.headers["x-qr-url"] == expected_url
    code = segno.make(expected_url, error="m", micro=False, boost_error=False)
    expected = [[bool(v) for v in row] for row in code.matrix_iter(border=4)]
    assert modules(response.text) == expected
    other = segno.make(f"{stack.url}/games/another", error="m", micro=False, boost_error=False)
    assert modules(response.text) != [[bool(v) for v in r] for r in other.matrix_iter(border=4)]
    missing = await stack.client.get("/games/no-such-game/qr.svg")
    assert missing.status_code == 404
    assert missing.json()["rule"].endswith("game_not_found")

    for path in (f"/tv/{GAME}", "/tv"):  # the TV of one game and the kiosk cycling
        page = await open_page(browser, f"{stack.url}{path}?lang=en", "tv")
        img = page.locator("#tv-qr-code")
        await expect(img).to_have_attribute("src", f"/games/{GAME}/qr.svg")
        await expect(img).to_have_attribute("data-url", expected_url)
        await expect(img).to_have_js_property("complete", True)
        assert await img.evaluate("i => i.naturalWidth") > 0
        await expect(page.locator("#tv-qr-caption")).to_have_text("Follow on your phone")
        assert page.errors == []  # type: ignore[attr-defined]


async def test_qr_code_encodes_the_public_url_when_one_is_set(
    stack: Stack, browser: Browser
) -> None:
    """`SCORELEDGER_PUBLIC_URL` (a TV opened on 127.0.0.1 behind a proxy): the code encodes the
    public address, path prefix kept, not the request's host; the TV's caption says the same."""
    await seeded(stack, 20)
    stack.settings.public_url = "https://scores.example.org/club/"  # type: ignore[assignment]
    public = f"https://scores.example.org/club/games/{GAME}"
    response = await stack.client.get(f"/games/{GAME}/qr.svg")
    assert response.status_code == 200
    assert response.headers["x-qr-url"] == public
    code = segno.make(public, error="m", micro=False, boost_error=False)
    assert modules(response.text) == [[bool(v) for v in r] for r in code.matrix_iter(border=4)]
    page = await open_page(browser, f"{stack.url}/tv/{GAME}?lang=en", "tv")
    await expect(page.locator("#tv-qr-code")).to_have_attribute("data-url", public)
    await expect(page.locator("#tv-qr-code")).to_have_js_property("complete", True)
    assert page.errors == []  # type: ignore[attr-defined]
