"""The byte estimate of a cached folded game (`sizedcache.state_bytes`) stays an upper bound
of what it retains when valid events carry their longest text (NonEmptyText: 500 characters)
in 4-byte characters, measured with tracemalloc; and its text count is incremental (a state
folded further counts only the new events). Source: docs/decisions/0011-faults-are-answered-not-crashed.md (caches bounded in bytes).
"""

from __future__ import annotations

import uuid

from domain.fold import Folder, fold
from services.runtime.sizedcache import state_bytes
from services.usecases.check import Known
from tests.doors.fault_support import kept_by
from tests.pipeline.factory import envelope, started

EVENTS = 300
TEXT = "\U0001f600" * 500  # a valid `reason` / `referee`: 500 characters


def _long_text_game() -> Known:
    """What the cache keeps of a game of `EVENTS` corrections carrying `TEXT` (the log itself
    is dropped on return)."""
    game = f"tr-break-bytes-{uuid.uuid4().hex[:8]}"
    log = [started(game)] + [
        envelope(game, seq, "game.score_corrected", _correction(TEXT))
        for seq in range(2, EVENTS + 1)
    ]
    return Known.of(fold(log))


def test_state_bytes_is_an_upper_bound_for_long_non_latin_text() -> None:
    known, kept = kept_by(_long_text_game)
    estimate = state_bytes(known.state)
    print(
        f"\n{EVENTS} events with 500-character non-Latin text: kept {kept} bytes, "
        f"estimate {estimate}, ratio {kept / estimate:.2f}"
    )
    assert kept <= estimate


def test_state_bytes_counts_each_event_once_and_follows_the_state() -> None:
    game = f"tr-bytes-{uuid.uuid4().hex[:8]}"
    short = [started(game), envelope(game, 2, "game.score_corrected", _correction("ok"))]
    folder = Folder.resume(None)
    for event in short:
        folder.add(event)
    before = folder.state
    small = state_bytes(before)
    folder.add(envelope(game, 3, "game.score_corrected", _correction(TEXT)))
    big = state_bytes(folder.state)
    print(f"\nbefore the long-text event {small} bytes, after {big}, again {small}")
    assert big - small >= 2 * 4 * len(TEXT)  # the two 500-emoji fields, 4 bytes each
    assert state_bytes(before) == small  # an older state of the game: not the newer one's count
    assert state_bytes(fold(short)) == small  # a fresh fold counts the same


def _correction(text: str) -> dict[str, object]:
    return {"player_id": "ann", "amount": 1, "reason": text, "referee": text}
