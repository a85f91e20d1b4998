"""A batch's per-game seqs (`projected.last_seqs`, `first_seqs`, `live_lasts`), taken per run
of one game's entries, answer as the entry-by-entry reading they replaced: the same games in
the same order (their first entry's), the same seqs, for any interleaving of games and any
seqs (a restart re-reads lower ones; a game may come back later in a batch).
Source: docs/decisions/0004-projector-catch-up-subscription.md."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from contracts.names import may_be_start
from services.ports.eventlog import FeedEntry
from services.usecases.projected import first_seqs, last_seqs, live_lasts, start_games

entries = st.lists(
    st.builds(
        lambda n, game, seq, live: FeedEntry(f"1-{n}", game, seq, b"{}", live),
        st.integers(0, 99),
        st.sampled_from(["tr-a", "tr-b", "pen-c"]),
        st.integers(1, 6),
        st.booleans(),
    ),
    max_size=25,
)


def _last_one_by_one(batch: list[FeedEntry]) -> dict[str, int]:
    last: dict[str, int] = {}
    for entry in batch:
        last[entry.game_id] = max(last.get(entry.game_id, 0), entry.seq)
    return last


def _first_one_by_one(batch: list[FeedEntry]) -> dict[str, int]:
    first: dict[str, int] = {}
    for entry in batch:
        first.setdefault(entry.game_id, entry.seq)
    return first


def _live_lasts_one_by_one(batch: list[FeedEntry]) -> dict[str, int] | None:
    if not any(entry.live for entry in batch):
        return None
    last = _last_one_by_one(batch)
    live = dict.fromkeys(last, False)
    for entry in batch:
        if entry.seq == last[entry.game_id] and entry.live:
            live[entry.game_id] = True
    return last if all(live.values()) else None


@settings(max_examples=300, deadline=None)
@given(entries)
def test_per_run_seqs_answer_as_entry_by_entry(batch: list[FeedEntry]) -> None:
    assert list(last_seqs(batch).items()) == list(_last_one_by_one(batch).items())
    assert list(first_seqs(batch).items()) == list(_first_one_by_one(batch).items())
    lasts = live_lasts(batch)
    expected = _live_lasts_one_by_one(batch)
    assert (None if lasts is None else list(lasts.items())) == (
        None if expected is None else list(expected.items())
    )


def test_a_game_back_later_in_the_batch_keeps_its_first_place() -> None:
    batch = [FeedEntry(f"1-{i}", g, s, b"{}") for i, (g, s) in enumerate(
        [("tr-a", 3), ("tr-b", 1), ("tr-a", 5), ("tr-a", 4), ("tr-b", 2)]
    )]  # fmt: skip
    assert list(last_seqs(batch).items()) == [("tr-a", 5), ("tr-b", 2)]
    assert list(first_seqs(batch).items()) == [("tr-a", 3), ("tr-b", 1)]


START = b'{"type":"trickerion.game_started","seq":1}'
_datas = st.sampled_from([b"{}", START, b'{"type":"game.turn_started"}'])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.builds(
            lambda n, game, seq, data: FeedEntry(f"1-{n}", game, seq, data),
            st.integers(0, 99),
            st.sampled_from(["tr-a", "tr-b", "pen-c"]),
            st.integers(1, 3),
            _datas,
        ),
        max_size=25,
    )
)
def test_start_games_are_the_games_of_entries_of_seq_1_that_may_start(
    batch: list[FeedEntry],
) -> None:
    expected = [e.game_id for e in batch if e.seq == 1 and may_be_start(e.data)]
    assert start_games(batch) == list(dict.fromkeys(expected))


def test_a_start_event_after_seq_1_asks_no_names() -> None:
    batch = [FeedEntry("1-0", "tr-a", 4, START), FeedEntry("1-1", "tr-b", 1, START)]
    assert start_games(batch) == ["tr-b"]
