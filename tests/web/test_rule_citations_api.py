"""The API's ledgers cite rules as pages and headings of this repository's docs
(docs/architecture/adding-a-game.md#rule-citations): every example game sent in full, then
each player's ledger (live and replayed), the standings and the scoresheet export read back."""

from __future__ import annotations

import pytest

from tests.docs.anchors import CITATION, broken
from tests.web.builders import example
from tests.web.conftest import Stack

pytestmark = pytest.mark.redis
NOT_CITATIONS = frozenset({"correction"})


def _problems(texts: list[str]) -> list[str]:
    found = [why for t in texts for c in CITATION.findall(t) if (why := broken(c))]
    stray = [t for t in texts if ".md" in CITATION.sub("", t) or "§" in t]
    return found + [f"not a docs citation: {t[:200]!r}" for t in stray]


@pytest.mark.parametrize("name", ["penumbra-3p", "trickerion-4p-dark-alley-academy"])
async def test_every_ledger_rule_the_api_sends_is_a_docs_heading(stack: Stack, name: str) -> None:
    events = list(example(name))
    game = events[0].game_id
    await stack.append(events)
    await stack.wait_projected(game, len(events))
    standings = await stack.client.get(f"/games/{game}/standings")
    texts = [standings.text]
    rules: set[str] = set()
    for player in standings.json()["players"]:
        pid = player["player_id"]
        for path in (f"/games/{game}/players/{pid}/ledger", f"/games/{game}/replay/ledger/{pid}"):
            answer = await stack.client.get(path)
            assert answer.status_code == 200, answer.text
            entries = answer.json()["entries"]
            assert entries
            rules |= {e["rule"] for e in entries}
            texts.append(answer.text)
    texts.append((await stack.client.get(f"/games/{game}/export/scoresheet.csv")).text)
    cited = rules - NOT_CITATIONS
    assert cited
    assert all(CITATION.fullmatch(r) and "#" in r for r in cited), rules
    assert _problems(texts) == []
