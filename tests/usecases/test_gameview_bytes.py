"""The projector's view estimate (`gameview.view_bytes`, counted from the JSON lines as they
are folded) stays an upper bound of what a folded game keeps (tracemalloc), for ordinary games
and for text built to defeat a count from the line: 4-byte characters, and ASCII lines whose
`\\u` escapes widen a long string to 4 bytes a character; and it stays near
`sizedcache.state_bytes` on ordinary games (not one that wastes the cache).
Source: docs/decisions/0011-faults-are-answered-not-crashed.md (caches bounded in bytes).
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from contracts.events import dump_event_json
from domain.fold import Folder
from services.runtime.sizedcache import state_bytes, text_bytes
from services.usecases.gameview import GameView, view_bytes
from tests.doors.fault_support import kept_by
from tests.pipeline.factory import envelope, started

EXAMPLES = Path(__file__).resolve().parents[2] / "contracts" / "examples"
EVENTS = 200


def _corrections(text: str, ascii_only: bool) -> list[bytes]:
    game = f"tr-view-bytes-{uuid.uuid4().hex[:8]}"
    payload = {"player_id": "ann", "amount": 1, "reason": text, "referee": text}
    events = [started(game)] + [
        envelope(game, seq, "game.score_corrected", payload) for seq in range(2, EVENTS + 1)
    ]
    lines = [dump_event_json(e) for e in events]
    if ascii_only:  # the same events, every non-ASCII character as a `\u` escape
        lines = [json.dumps(json.loads(line)) for line in lines]
    return [line.encode() for line in lines]


@pytest.mark.parametrize(
    ("text", "ascii_only"),
    [
        ("\U0001f600" * 500, False),  # 500 4-byte characters, 2,000 bytes of UTF-8
        ("a" * 499 + "\U0001f600", True),  # ASCII line of 510 bytes, a 2,000-byte string
        ("a" * 500, True),  # plain long ASCII text
    ],
    ids=["4-byte", "escaped-widening", "ascii"],
)
def test_view_bytes_is_an_upper_bound_for_long_text(text: str, ascii_only: bool) -> None:
    lines = _corrections(text, ascii_only)
    view, kept = kept_by(lambda: GameView.folded(lines))
    estimate = view_bytes(view)
    print(f"\n{EVENTS} events: kept {kept} bytes, estimate {estimate}, ratio {kept / estimate:.2f}")
    assert kept <= estimate


@pytest.mark.parametrize("name", ["trickerion-4p-dark-alley-academy", "penumbra-3p"])
def test_view_bytes_bounds_an_example_game_near_state_bytes(name: str) -> None:
    lines = (EXAMPLES / f"{name}.jsonl").read_bytes().splitlines()
    view, kept = kept_by(lambda: GameView.folded(lines))
    estimate, walked = view_bytes(view), state_bytes(view.folder.state)
    print(f"\n{name}: kept {kept} bytes, estimate {estimate}, state_bytes {walked}")
    assert kept <= estimate <= 3 * kept
    assert 0.8 * walked <= estimate <= 1.2 * walked


def test_view_bytes_counts_each_event_once() -> None:
    lines = _corrections("\U0001f600" * 500, False)
    view = GameView.folded(lines[:2])
    small = view_bytes(view)
    assert view_bytes(view) == small  # estimated again: nothing counted twice
    view.add(lines[2])
    big = view_bytes(view)
    assert big - small >= 2 * 4 * 500  # the two 500-emoji fields, 4 bytes each
    assert view_bytes(view) == big
    assert view_bytes(GameView(Folder())) < small  # nothing folded: the fixed part only


@pytest.mark.parametrize(
    ("text", "escaped"),
    [("plain", False), ('a "quoted" word and a back\\slash', False), ("caf\u00e9", True)],
    ids=["no-backslash", "backslash-no-u", "u-escape"],
)
def test_a_line_is_counted_by_its_length_unless_it_holds_a_u_escape(
    text: str, escaped: bool
) -> None:
    """The text of an ASCII line is counted as its length when it holds no `\\u` escape (a
    backslash alone, as in an escaped quote, does not widen a string), else walked."""
    game = f"tr-view-count-{uuid.uuid4().hex[:8]}"
    payload = {"player_id": "ann", "amount": 1, "reason": text, "referee": "ref"}
    lines = [
        json.dumps(json.loads(dump_event_json(e))).encode()  # ASCII, `\\u` for non-ASCII
        for e in (started(game), envelope(game, 2, "game.score_corrected", payload))
    ]
    assert (b"\\u" in lines[1]) is escaped
    view = GameView.folded(lines[:1])
    before = view.text
    view.add(lines[1])
    counted = view.text - before
    if escaped:
        assert counted == text_bytes(view.folder.state.history[-1])
    else:
        assert counted == len(lines[1])
