"""Points read as words do: "1 pt" and "2 pts" in English (the language's plural rule, from
`Intl.PluralRules`), the one abbreviation "очк." in Russian; a demo printed "1 pts"."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser

from tests.web.browser import open_page
from tests.web.conftest import Stack

pytestmark = [pytest.mark.browser, pytest.mark.redis]

WORDS = """async () => {
  const { tCount } = await import("/static/js/i18n.js");
  return [0, 0.5, 1, 2, 14].map((n) => tCount("tn_pts", n));
}"""


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", ["pts", "pts", "pt", "pts", "pts"]),
        ("ru", ["очк.", "очк.", "очк.", "очк.", "очк."]),
    ],
)
async def test_points_take_the_plural_form_of_their_count(
    stack: Stack, browser: Browser, lang: str, words: list[str]
) -> None:
    page = await open_page(browser, f"{stack.url}/tournaments/new?lang={lang}", "phone")
    assert await page.evaluate(WORDS) == words
