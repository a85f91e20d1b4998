"""`feed_entries` (a read's entries, a game's id checked once per read) answers exactly as
`parse_feed_entry` entry by entry: the same entries, the same malformed ones with the same rule,
in feed order, whatever mix of good and broken fields a feed holds
(docs/decisions/0011-faults-are-answered-not-crashed.md: a malformed entry is lettered alone)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.adapters.redis.feed import feed_entries, parse_feed_entry
from services.adapters.redis.keys import shard_of
from services.ports.eventlog import FeedEntry, MalformedFeedEntry

SHARDS = 4
GAMES = [b"tr-a", b"tr-b", b"pen-c", b"pen-d", b"bad id", b"\xff\xfe", b""]
SEQS = [b"1", b"2", b"17", b"0", b"01", b"-3", b"x", b"\xd9\xa1", b"123456789012345678901"]
SEQS += [b"123456789012345678", b"1234567890123456789", b"1\n", b" 1", b"+1", b"\xef\xbc\x91"]
"""Of them the longest seq (18 digits) and one too long, spaces, a sign, a full-width 1."""

fields = st.fixed_dictionaries(
    {},
    optional={
        b"game": st.sampled_from(GAMES),
        b"seq": st.sampled_from(SEQS),
        b"data": st.sampled_from([b"{}", b'{"type":"x"}']),
        b"live": st.sampled_from([b"1", b"0"]),
    },
)


@settings(max_examples=300, deadline=None)
@given(st.lists(fields, max_size=30), st.integers(0, SHARDS - 1))
def test_a_read_answers_as_its_entries_one_by_one(
    entries: list[dict[bytes, bytes]], shard: int
) -> None:
    read = [(f"{i + 1}-0".encode(), f) for i, f in enumerate(entries)]
    good, bad = feed_entries(read, shard, SHARDS)
    one = [parse_feed_entry(entry_id, f, shard, SHARDS) for entry_id, f in read]
    assert good == [e for e in one if not isinstance(e, MalformedFeedEntry)]
    assert bad == [e for e in one if isinstance(e, MalformedFeedEntry)]


def test_the_games_of_the_sample_include_this_shards_and_others() -> None:
    shards = {shard_of(g.decode(), SHARDS) for g in GAMES[:4]}
    assert len(shards) > 1  # so the wrong-shard rule is met after a good entry of a game


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(fields, st.randoms(use_true_random=False), st.booleans()), max_size=30),
    st.integers(0, SHARDS - 1),
)
def test_flat_fields_answer_as_their_mapping(
    entries: list[tuple[dict[bytes, bytes], random.Random, bool]], shard: int
) -> None:
    """Fields as the flat list Redis sends (in the append script's order, shuffled, or with a
    name repeated, whose last value counts) read as the same fields given as a mapping."""
    read_flat: list[tuple[bytes, list[bytes]]] = []
    read_named: list[tuple[bytes, dict[bytes, bytes]]] = []
    for i, (named, rng, repeat) in enumerate(entries):
        pairs = list(named.items())
        if rng.random() < 0.3:
            rng.shuffle(pairs)
        if repeat and pairs:
            first = pairs[0]
            pairs = [(first[0], b"overwritten"), *pairs]  # the later value stands
        entry_id = f"{i + 1}-0".encode()
        read_flat.append((entry_id, [part for pair in pairs for part in pair]))
        read_named.append((entry_id, dict(pairs)))
    assert feed_entries(read_flat, shard, SHARDS) == feed_entries(read_named, shard, SHARDS)


def test_an_entry_read_by_place_is_a_feed_entry_as_its_constructor_builds_it() -> None:
    """The entries of a read are built without `FeedEntry.__new__` (services/adapters/redis/feed.py,
    `tuple.__new__` over the columns): still `FeedEntry`s, equal, hashed alike and immutable."""
    read = [
        (
            f"{i}-0".encode(),
            [b"game", b"tr-a", b"seq", str(i).encode(), b"data", b"{}", b"live", b"1"],
        )
        for i in (1, 2)
    ]
    good, bad = feed_entries(read, shard_of("tr-a", SHARDS), SHARDS)
    assert not bad
    second = good[1]
    assert type(second) is FeedEntry
    assert second == FeedEntry("2-0", "tr-a", 2, b"{}", True)
    assert hash(second) == hash(FeedEntry("2-0", "tr-a", 2, b"{}", True))
    assert (second.feed_id, second.game_id, second.seq, second.data, second.live) == tuple(second)
    with pytest.raises(AttributeError):
        second.seq = 3  # type: ignore[misc]


@pytest.mark.parametrize("seq", SEQS)
def test_the_seq_of_a_game_met_before_is_read_by_the_same_rule(seq: bytes) -> None:
    """The seq of an entry whose game the read met before (checked without a regex) is
    refused or read exactly as `parse_feed_entry` refuses or reads it."""
    shard = shard_of("tr-a", SHARDS)
    first = (b"1-0", [b"game", b"tr-a", b"seq", b"1", b"data", b"{}"])
    second = (b"2-0", [b"game", b"tr-a", b"seq", seq, b"data", b"{}"])
    good, bad = feed_entries([first, second], shard, SHARDS)
    alone = parse_feed_entry(b"2-0", {b"game": b"tr-a", b"seq": seq, b"data": b"{}"}, shard, SHARDS)
    assert (good[1:], bad) == (
        ([], [alone]) if isinstance(alone, MalformedFeedEntry) else ([alone], [])
    )


def test_the_column_builder_knows_every_field_in_order() -> None:
    """`feed_entries` builds a `FeedEntry` from its five values in order, without its
    `__new__`: a field added or moved must change that builder too."""
    assert FeedEntry._fields == ("feed_id", "game_id", "seq", "data", "live")


LAID_OUT = st.tuples(
    st.sampled_from(GAMES[:4] * 6 + GAMES[4:]),
    st.sampled_from([b"1", b"2", b"17", b"123456789012345678"] * 8 + SEQS),
    st.sampled_from([b"{}", b'{"type":"x"}']),
)


@settings(max_examples=500, deadline=None)
@given(
    st.lists(LAID_OUT, min_size=1, max_size=30),
    st.integers(0, SHARDS - 1),
    st.sampled_from([None, b"1", b"0", b"mixed"]),
)
def test_a_read_in_the_append_scripts_layout_answers_as_one_by_one(
    entries: list[tuple[bytes, bytes, bytes]], shard: int, live: bytes | None
) -> None:
    """Reads as the append script writes them (flat fields by place, mostly well-formed: the
    column-by-column read) answer as `parse_feed_entry` entry by entry."""
    read: list[tuple[bytes, list[bytes]]] = []
    for i, (game, seq, data) in enumerate(entries):
        fields = [b"game", game, b"seq", seq, b"data", data]
        flag = (b"1" if i % 2 else b"0") if live == b"mixed" else live
        read.append((f"{i + 1}-{i % 3}".encode(), fields + ([b"live", flag] if flag else [])))
    good, bad = feed_entries(read, shard, SHARDS)
    one = [parse_feed_entry(entry_id, dict(zip(f[::2], f[1::2], strict=True)), shard, SHARDS)
           for entry_id, f in read]  # fmt: skip
    assert good == [e for e in one if not isinstance(e, MalformedFeedEntry)]
    assert bad == [e for e in one if isinstance(e, MalformedFeedEntry)]
    assert all(type(e) is FeedEntry for e in good)


def test_fields_of_six_names_as_a_mapping_are_read_by_name() -> None:
    """A mapping of six fields (a cluster's reply; extra names) is not read by place."""
    shard = shard_of("tr-a", SHARDS)
    named = {b"game": b"tr-a", b"seq": b"1", b"data": b"{}", b"x": b"", b"y": b"", b"z": b""}
    flat = (b"game", b"tr-a", b"seq", b"2", b"data", b"{}")
    good, bad = feed_entries([(b"1-0", named), (b"2-0", flat)], shard, SHARDS)
    assert (good, bad) == (
        [FeedEntry("1-0", "tr-a", 1, b"{}"), FeedEntry("2-0", "tr-a", 2, b"{}")],
        [],
    )


def test_mappings_whose_keys_look_laid_out_are_read_by_name() -> None:
    """Mappings only, their six keys in the append script's order of names: laid end to end
    they would be their keys (`_laid_out_flat` takes lists only), so they are read by name."""
    shard = shard_of("tr-a", SHARDS)
    keys = (b"game", b"tr-b", b"seq", b"2", b"data", b"{}")
    named = dict.fromkeys(keys, b"")
    named.update({b"game": b"tr-a", b"seq": b"1", b"data": b"{}"})
    good, bad = feed_entries([(b"1-0", named), (b"2-0", dict(named))], shard, SHARDS)
    assert (good, bad) == (
        [FeedEntry("1-0", "tr-a", 1, b"{}"), FeedEntry("2-0", "tr-a", 1, b"{}")],
        [],
    )
