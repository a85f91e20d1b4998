"""The example game contracts/examples/penumbra-3p.jsonl folds to its hand score sheet.

penumbra-3p.expected.json holds the sheet's hand-computed values; the sheet's totals table
(penumbra-3p.scoresheet.md) must agree with it, and the fold must reproduce both.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from contracts.events import parse_event_json
from domain.fold import GameState, fold
from domain.ledger import Resource
from domain.penumbra.categories import (
    CARD_CATEGORIES,
    CATEGORIES,
    card_vp,
    card_vp_since,
    category_vp,
)
from domain.standings import standings

EXAMPLES = Path(__file__).resolve().parents[3] / "contracts" / "examples"
EXPECTED = json.loads((EXAMPLES / "penumbra-3p.expected.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def events() -> list:
    lines = (EXAMPLES / "penumbra-3p.jsonl").read_text(encoding="utf-8").splitlines()
    return [parse_event_json(line) for line in lines]


@pytest.fixture(scope="module")
def state(events: list) -> GameState:
    return fold(events)


def test_the_log_is_a_complete_game_with_turns_a_prophecy_and_final_turns(events: list) -> None:
    assert [e.seq for e in events] == list(range(1, EXPECTED["events"] + 1))
    assert len({e.event_id for e in events}) == len(events)
    times = [e.occurred_at for e in events]
    assert times == sorted(times)
    assert len(set(times)) == len(times)
    types = Counter(e.type for e in events)
    assert types["game.turn_started"] >= 8
    assert types["penumbra.prophecy_triggered"] >= 1
    assert types["penumbra.final_turn_taken"] == 3
    assert events[-1].type == "game.ended"


def test_the_fold_matches_the_hand_score_sheet(state: GameState) -> None:
    s = standings(state)
    assert s.status == EXPECTED["status"]
    assert s.winner == EXPECTED["winner"]
    for line in s.players:
        want = EXPECTED["players"][line.player_id]
        got = {c.key: line.categories.get(c.key, 0) for c in CATEGORIES if c.key != "joined"}
        assert (line.rank, line.total, got) == (want["rank"], want["total"], want["categories"])


def test_the_markdown_sheet_agrees_with_the_expected_json() -> None:
    sheet = (EXAMPLES / "penumbra-3p.scoresheet.md").read_text(encoding="utf-8")
    row = re.search(r"^\| \*\*TOTAL\*\* \| (.+) \|$", sheet, re.MULTILINE)
    assert row is not None
    totals = [int(cell.strip("* ").replace("−", "-")) for cell in row.group(1).split("|")]
    assert totals == [EXPECTED["players"][p]["total"] for p in ("mira", "oren", "tess")]


def test_after_every_event_the_ledger_is_the_if_ended_now_score(events: list) -> None:
    for upto in range(2, len(events) + 1):
        st = fold(events, upto_seq=upto)
        vp = Counter[tuple[str, str]]()
        for e in st.ledger:
            if e.resource is Resource.VP:
                vp[(e.player_id, e.category)] += e.amount
        for pid, tableau in st.rules.tableaux.items():
            for key, value in category_vp(tableau, st.rules.options).items():
                assert vp[(pid, key)] == value, (upto, pid, key)


def test_card_vp_since_any_earlier_tableau_is_category_vp(events: list) -> None:
    """The incremental tally (`card_vp_since`, used by the fold) reuses a category only
    when its inputs are the very same objects: from ANY earlier tableau of the player it gives
    the full `category_vp` (docs/decisions/0012-hot-reads-and-off-loop-replays.md)."""
    states = [fold(events, upto_seq=upto) for upto in range(1, len(events) + 1)]
    options = states[0].rules.options
    checked = 0
    for later in states[1:]:
        for pid, tableau in later.rules.tableaux.items():
            full = category_vp(tableau, options)
            want = tuple(full[key] for key in CARD_CATEGORIES)
            assert card_vp(tableau, options) == want
            for earlier in states[:: max(1, len(states) // 12)]:
                old = earlier.rules.tableaux[pid]
                got = card_vp_since(tableau, options, old, card_vp(old, options))
                assert got == want
                checked += 1
    assert checked > 100
