"""`live_read` (a read the appends projected, checked in passes of C) answers exactly what
`feed_entries` and `live_lasts` answer for the same read: a `LiveRead` only when every entry is
well-formed and live, with each game's highest seq in first-entry order; and for every such
read (services/adapters/redis/feed.py). `ReadEntries` builds the same entries when looked at."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from services.adapters.redis.feed import ReadEntries, feed_entries, live_read
from services.adapters.redis.keys import shard_of
from services.usecases.projected import live_lasts

SHARDS = 4
SHARD = 0
MINE = [g.encode() for g in (f"g{i}" for i in range(40)) if shard_of(g, SHARDS) == SHARD][:3]
OTHER = next(g.encode() for g in (f"h{i}" for i in range(40)) if shard_of(g, SHARDS) != SHARD)
GAMES = MINE * 4 + [OTHER, b"bad id", b"\xff\xfe", b""]
SEQS = [b"1", b"2", b"3", b"9", b"10", b"17", b"123456789012345678"] * 3
SEQS += [b"0", b"01", b"-3", b"x", b"", b" 1", b"+1", b"\xef\xbc\x91", b"1234567890123456789"]
"""Mostly good (so whole reads of good entries are common), some that break each rule."""

entry = st.tuples(
    st.sampled_from(GAMES),
    st.sampled_from(SEQS),
    st.sampled_from([b"1"] * 8 + [b"0", b"yes"]),
    st.sampled_from(["append"] * 8 + ["no live", "renamed", "extra", "dict"]),
)


def _fields(game: bytes, seq: bytes, live: bytes, shape: str) -> list[bytes] | dict[bytes, bytes]:
    flat = [b"game", game, b"seq", seq, b"data", b"{}", b"live", live]
    if shape == "no live":
        return flat[:6]
    if shape == "renamed":
        return [b"gamE", *flat[1:]]
    if shape == "extra":
        return [*flat, b"x", b"1"]
    if shape == "dict":  # redis-py's parse (a cluster's read): left to `feed_entries`
        return dict(zip(flat[::2], flat[1::2], strict=True))
    return flat


@settings(max_examples=500, deadline=None)
@given(st.lists(entry, max_size=12))
def test_a_read_is_live_exactly_when_its_entries_say_so(
    entries: list[tuple[bytes, bytes, bytes, str]],
) -> None:
    read = [(f"{i + 1}-0".encode(), _fields(*e)) for i, e in enumerate(entries)]
    got = live_read(read, SHARD, SHARDS)
    good, bad = feed_entries(read, SHARD, SHARDS)
    all_live = bool(read) and not bad and all(e.live for e in good)
    flat = all(shape == "append" for *_, shape in entries)
    if not (all_live and flat):
        assert got is None
        return
    assert got is not None
    lasts = live_lasts(good)
    assert lasts is not None
    assert list(got.lasts.items()) == list(lasts.items())  # the same games in the same order
    assert (got.first_id, got.last_id) == (good[0].feed_id, good[-1].feed_id)
    built = ReadEntries(read, SHARD, SHARDS)
    assert len(built) == len(read)
    assert built == good
    assert list(built) == good
    assert built[-1] == good[-1]


def test_each_games_highest_seq_wherever_it_stands() -> None:
    """A game's highest seq counts even before a lower one (an entry fed again), across runs
    of other games' entries."""
    a, b = MINE[0], MINE[1]
    rows = [(a, b"5"), (a, b"9"), (b, b"2"), (a, b"7"), (b, b"1")]
    read = [
        (f"{i}-0".encode(), [b"game", g, b"seq", s, b"data", b"{}", b"live", b"1"])
        for i, (g, s) in enumerate(rows, 1)
    ]
    got = live_read(read, SHARD, SHARDS)
    assert got is not None
    assert dict(got.lasts) == {a.decode(): 9, b.decode(): 2}
    assert dict(got.lasts) == live_lasts(feed_entries(read, SHARD, SHARDS)[0])


@given(st.sampled_from(sorted(set(SEQS))), st.sampled_from(sorted(set(GAMES))))
def test_one_bad_field_in_a_good_read_leaves_it_to_feed_entries(seq: bytes, game: bytes) -> None:
    """Each seq and game id of the sample after a good entry: read live exactly when
    `feed_entries` finds nothing malformed."""
    first = (b"1-0", [b"game", MINE[0], b"seq", b"1", b"data", b"{}", b"live", b"1"])
    second = (b"2-0", [b"game", game, b"seq", seq, b"data", b"{}", b"live", b"1"])
    _, bad = feed_entries([first, second], SHARD, SHARDS)
    assert (live_read([first, second], SHARD, SHARDS) is None) == bool(bad)
