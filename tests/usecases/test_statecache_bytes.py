"""The ingest state cache's estimate (`statecache.known_bytes`, the text counted from the
appended events' stored lines as a game grows, `statecache.grown`) stays an upper bound of what
a folded game keeps (tracemalloc) for ordinary games and for 4-byte text (walked), counts the
names a stored start event lacks, and stays near `sizedcache.state_bytes` on the example games.
Source: docs/decisions/0011-faults-are-answered-not-crashed.md (caches bounded in bytes).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from pathlib import Path

import pytest

from contracts.envelope import Envelope
from contracts.events import dump_event_json, parse_event_json
from contracts.names import strip_names
from domain.fold import Folder
from services.runtime.sizedcache import state_bytes, text_bytes
from services.usecases.statecache import Known, grown, known_bytes
from tests.doors.fault_support import kept_by
from tests.pipeline.factory import envelope, started

EXAMPLES = Path(__file__).resolve().parents[2] / "contracts" / "examples"
BATCH = 50


def _lines_text(events: Sequence[Envelope]) -> int | None:
    """What the Redis adapter answers as `AppendResult.text` for `events` (names stripped)."""
    lines = [dump_event_json(strip_names(e)[0]) for e in events]
    if all(line.isascii() and "\\u" not in line for line in lines):
        return sum(map(len, lines))
    return None


def _appended(events: Sequence[Envelope]) -> Known:
    """The cache entry after appending `events` in batches of `BATCH`, as `CheckedAppend`
    puts it (each batch grown from the entry before, its estimate taken at the put)."""
    folder: Folder[object] = Folder()
    known: Known | None = None
    for at in range(0, len(events), BATCH):
        batch = events[at : at + BATCH]
        for event in batch:
            folder.add(event)
        ids = {e.event_id: e.seq for e in events[: at + len(batch)]}
        known = grown(known, folder.state, ids, batch, _lines_text(batch))
        known_bytes(known)
    assert known is not None
    return known


def _corrections(text: str, n: int = 200) -> list[Envelope]:
    game = f"tr-known-bytes-{uuid.uuid4().hex[:8]}"
    payload = {"player_id": "ann", "amount": 1, "reason": text, "referee": text}
    return [started(game)] + [
        envelope(game, seq, "game.score_corrected", payload) for seq in range(2, n + 1)
    ]


@pytest.mark.parametrize(
    "text", ["\U0001f600" * 500, "a" * 500], ids=["4-byte (walked)", "ascii (lines)"]
)
def test_known_bytes_is_an_upper_bound_for_long_text(text: str) -> None:
    known, kept = kept_by(lambda: _appended(_corrections(text)))
    estimate = known_bytes(known)
    print(f"\nkept {kept} bytes, estimate {estimate}, ratio {kept / estimate:.2f}")
    assert kept <= estimate


@pytest.mark.parametrize("name", ["trickerion-4p-dark-alley-academy", "penumbra-3p"])
def test_known_bytes_bounds_an_example_game_near_state_bytes(name: str) -> None:
    lines = (EXAMPLES / f"{name}.jsonl").read_bytes().splitlines()
    known, kept = kept_by(lambda: _appended([parse_event_json(line) for line in lines]))
    estimate, walked = known_bytes(known), state_bytes(known.state)
    print(f"\n{name}: kept {kept} bytes, estimate {estimate}, state_bytes {walked}")
    assert known.text is not None  # counted from the lines, not walked
    assert kept <= estimate <= 3 * kept
    assert 0.8 * walked <= estimate <= 1.2 * walked


def test_a_start_event_is_walked_for_the_names_its_stored_line_lacks() -> None:
    start = started(f"tr-named-{uuid.uuid4().hex[:8]}")
    folder: Folder[object] = Folder()
    folder.add(start)
    known = grown(None, folder.state, {start.event_id: 1}, [start], 0)
    assert known.text is not None
    assert known.text >= text_bytes(start)


def test_known_bytes_counts_each_event_once_and_a_stored_fold_once() -> None:
    events = _corrections("\U0001f600" * 500, 3)
    known = _appended(events[:2])
    small = known_bytes(known)
    assert known_bytes(known) == small  # estimated again: nothing counted twice
    folder = Folder.resume(known.state)
    folder.add(events[2])
    big = known_bytes(grown(known, folder.state, {}, events[2:], None))
    assert big - small >= 2 * 4 * 500  # the two 500-emoji fields, 4 bytes each
    stored = Known.of(folder.state)  # folded from storage: walked once, then counted on
    assert known_bytes(stored) >= big - 2 * 4 * 500
    assert stored.text is not None
