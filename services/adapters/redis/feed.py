"""Reading one shard feed entry (fields `game`, `seq`, `data`, written by the append script).

An entry that is not what the append script writes (a hostile or broken `XADD`, a bug) becomes a
`MalformedFeedEntry` naming the rule and field, instead of an exception that would lose the
whole batch (docs/decisions/0011-faults-are-answered-not-crashed.md: "a malformed feed entry drops its whole batch silently").

Rules: `feed.field_missing` (`game`, `seq`, `data`), `feed.not_utf8` (`game`, `seq`),
`feed.seq_invalid` (not a positive integer), `feed.game_id_invalid` (not a game id, see
`contracts.envelope.GameId`), `feed.wrong_shard` (a game of another shard: its projection lives
in another Cluster slot).

A read whose every entry is well-formed and live (its appends projected the games) is checked
whole by `live_read`, and its `FeedEntry`s are built only if the projector folds it after all
(`ReadEntries`): on the all-roles load that is nearly every read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from functools import partial
from itertools import chain, groupby, repeat
from operator import eq, itemgetter
from typing import Any, overload

from services.adapters.redis.keys import shard_of
from services.ports.eventlog import FeedEntry, MalformedFeedEntry
from services.ports.feeds import LiveRead

MAX_RAW_BYTES = 65_536
"""Most bytes of a malformed entry kept in its dead letter (the rest is cut, its size noted)."""

_GAME_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_SEQ = re.compile(r"[1-9][0-9]{0,17}")

# A `FeedEntry` of an entry read by place, built in C from its five values (its `__new__`
# is a Python function).
_new_entry = partial(tuple.__new__, FeedEntry)


def raw_fields(fields: Mapping[bytes, bytes], limit: int = MAX_RAW_BYTES) -> bytes:
    """The entry's fields as a JSON object (bytes that are not UTF-8 as `\\x..` escapes), cut
    to `limit` bytes."""
    text = json.dumps(
        {
            k.decode("utf-8", "backslashreplace"): v.decode("utf-8", "backslashreplace")
            for k, v in fields.items()
        },
        ensure_ascii=False,
    )
    return text.encode()[:limit]


def parse_feed_entry(
    entry_id: bytes, fields: Mapping[bytes, bytes], shard: int, shards: int
) -> FeedEntry | MalformedFeedEntry:
    """The `FeedEntry` of one XREAD entry of shard `shard`'s feed, or why it is not one."""
    feed_id = entry_id.decode()

    def bad(rule: str, field: str, message: str, game: str | None = None) -> MalformedFeedEntry:
        return MalformedFeedEntry(feed_id, raw_fields(fields), rule, field, message, game)

    for name in (b"game", b"seq", b"data"):
        if name not in fields:
            return bad("feed.field_missing", name.decode(), f"no field {name.decode()!r}")
    try:
        game_id = fields[b"game"].decode()
    except UnicodeDecodeError:
        return bad("feed.not_utf8", "game", "the game id is not UTF-8")
    if not _GAME_ID.fullmatch(game_id):
        return bad("feed.game_id_invalid", "game", "not a game id (1-64 of A-Z a-z 0-9 _ . -)")
    try:
        seq_text = fields[b"seq"].decode()
    except UnicodeDecodeError:
        return bad("feed.not_utf8", "seq", "the seq is not UTF-8", game_id)
    if not _SEQ.fullmatch(seq_text):
        return bad("feed.seq_invalid", "seq", f"{seq_text[:40]!r} is not an integer >= 1", game_id)
    if shard_of(game_id, shards) != shard:
        return bad("feed.wrong_shard", "game", f"game {game_id!r} is not of shard {shard}", game_id)
    return FeedEntry(feed_id, game_id, int(seq_text), fields[b"data"], fields.get(b"live") == b"1")


def _laid_out(fields: Sequence[bytes]) -> bool:
    """The flat fields are exactly the append script's: `game`, `seq`, `data` and maybe `live`,
    in that order, each once (so reading them by place is reading them by name)."""
    n = len(fields)
    return (
        (n == 6 or (n == 8 and fields[6] == b"live"))
        and fields[0] == b"game"
        and fields[2] == b"seq"
        and fields[4] == b"data"
    )


def _as_mapping(fields: Mapping[bytes, bytes] | Sequence[bytes]) -> Mapping[bytes, bytes]:
    """The fields as a mapping; a flat list's repeated name keeps its last value, as
    redis-py's `pairs_to_dict` does."""
    if isinstance(fields, Mapping):
        return fields
    it = iter(fields)
    return dict(zip(it, it, strict=False))


def _main_fields(
    fields: Mapping[bytes, bytes] | Sequence[bytes],
) -> tuple[bytes | None, bytes | None, bytes | None, bool]:
    """`game`, `seq`, `data` (None: absent) and whether `live` is `1`."""
    if isinstance(fields, list) and _laid_out(fields):  # read by place: no dict per entry
        return fields[1], fields[3], fields[5], len(fields) == 8 and fields[7] == b"1"
    named = _as_mapping(fields)
    live = named.get(b"live") == b"1"
    return named.get(b"game"), named.get(b"seq"), named.get(b"data"), live


def feed_entries(
    game_entries: Sequence[tuple[bytes, Mapping[bytes, bytes] | Sequence[bytes]]],
    shard: int,
    shards: int,
) -> tuple[list[FeedEntry], list[MalformedFeedEntry]]:
    """XREAD entries of shard `shard`'s feed (fields `game`, `seq`, `data`, as a mapping or as
    the flat list Redis sends), the `FeedEntry`s, and the malformed ones (dead-lettered alone
    by `Project.apply`), each in feed order. A read whose every entry is well-formed in the
    append script's layout (`_laid_out`, all with `live` or all without) is read column by
    column (`_well_formed`); any other entry by entry."""
    whole = _well_formed(game_entries, shard, shards)
    if whole is not None:
        return whole, []
    good: list[FeedEntry] = []
    bad: list[MalformedFeedEntry] = []
    games: dict[bytes, str] = {}  # `game` fields found valid for this shard in this read
    for entry_id, fields in game_entries:
        # A game met before in the read (a catch-up reads each game's events in a row): its id
        # is checked already; only the seq is (bytes of ASCII digits: the same rule).
        if (  # `_main_fields` and its `_laid_out`, inlined (a call less per entry)
            isinstance(fields, list)
            and (len(fields) == 6 or (len(fields) == 8 and fields[6] == b"live"))
            and fields[0] == b"game"
            and fields[2] == b"seq"
            and fields[4] == b"data"
        ):
            game, seq, data = fields[1], fields[3], fields[5]
            live = len(fields) == 8 and fields[7] == b"1"
        else:
            game, seq, data, live = _main_fields(fields)
        game_id = games.get(game) if game is not None else None
        if (  # the seq as `_SEQ` reads it, without a regex: 1-18 ASCII digits, the first not 0
            game_id is not None
            and data is not None
            and seq
            and len(seq) <= 18
            and seq.isdigit()
            and seq[0] != 48
        ):
            good.append(_new_entry((entry_id.decode(), game_id, int(seq), data, live)))
            continue
        named = _as_mapping(fields)
        parsed = parse_feed_entry(entry_id, named, shard, shards)
        if isinstance(parsed, MalformedFeedEntry):
            bad.append(parsed)
        else:
            good.append(parsed)
            games[named[b"game"]] = parsed.game_id
    return good, bad


Read = Sequence[tuple[bytes, Mapping[bytes, bytes] | Sequence[bytes]]]
"""XREAD entries of one feed: (entry id, fields as a mapping or the flat list Redis sends)."""

_LIVE_NAMES = ((0, b"game"), (2, b"seq"), (4, b"data"), (6, b"live"), (7, b"1"))
"""The places and values of a live entry's field names and its `live` flag (1)."""
_first, _second = itemgetter(0), itemgetter(1)


def _well_formed(game_entries: Read, shard: int, shards: int) -> list[FeedEntry] | None:
    """The `FeedEntry`s of XREAD entries of shard `shard`'s feed when every entry is an
    (id, flat fields) pair in the append script's layout (`_laid_out`: all eight fields with
    `live`, or all six without), with a seq and a game id `parse_feed_entry` reads well-formed
    (same rules); else None (`feed_entries` then reads them one by one).

    No Python code runs per entry: the fields are laid end to end and each column is a slice
    of them taken in C (as `live_read` takes them; a `map` of an item getter costs a call per
    entry), each run of one game's entries is taken whole and each game id checked once, and
    the entries are built by `tuple.__new__` over the zipped columns
    (docs/profiles/projector-catch-up-io.md)."""
    flat = _laid_out_flat(game_entries)
    if flat is None:
        return None
    n, width = len(game_entries), len(game_entries[0][1])
    seqs: list[bytes] = flat[3::width]
    try:  # `_SEQ`: 1-18 ASCII digits, the first not 0 (all digits: the least is not below b"1")
        if not all(map(bytes.isdigit, seqs)) or max(map(len, seqs)) > 18 or min(seqs) < b"1":
            return None
        feed_ids = list(map(bytes.decode, map(_first, game_entries)))
    except TypeError:  # not bytes (no reply holds any): read one by one
        return None
    games: list[bytes] = flat[1::width]
    ids = _game_ids(games, shard, shards)
    if ids is None:
        return None
    live = map(eq, flat[7::8], repeat(b"1")) if width == 8 else repeat(False, n)
    columns = zip(
        feed_ids, map(ids.__getitem__, games), map(int, seqs), flat[5::width], live,
        strict=True,
    )  # fmt: skip
    return list(map(_new_entry, columns))


def _laid_out_flat(game_entries: Read) -> list[Any] | None:
    """The entries' flat fields laid end to end when every entry's are a list in the append
    script's layout (`_laid_out`), all with `live` or all without; else None. For a reply as
    Redis sends it: (id, fields) pairs (a third item in a pair, which no reply holds, is not
    read as `feed_entries` reads it); fields of another type are read one by one by
    `feed_entries` (a mapping laid end to end would be its keys)."""
    n = len(game_entries)
    if not n:
        return None
    fields: list[Any] = list(map(_second, game_entries))
    width = len(fields[0]) if isinstance(fields[0], list) else 0
    if width not in (6, 8) or set(map(type, fields)) != {list}:
        return None
    if list(map(len, fields)).count(width) != n:
        return None
    flat: list[Any] = list(chain.from_iterable(fields))
    if any(flat[i::width].count(name) != n for i, name in _LIVE_NAMES[: width // 2]):
        return None
    return flat


def _game_ids(games: list[bytes], shard: int, shards: int) -> dict[bytes, str] | None:
    """Each distinct `game` field of `games` decoded, when every one is a game id of shard
    `shard` (`parse_feed_entry`'s rules); else None. Taken per run of one game's entries."""
    ids: dict[bytes, str] = {}
    for raw, _ in groupby(games):
        if raw in ids:
            continue
        try:
            game_id = ids[raw] = raw.decode()
        except (UnicodeDecodeError, AttributeError):
            return None
        if not _GAME_ID.fullmatch(game_id) or shard_of(game_id, shards) != shard:
            return None
    return ids


def live_read(game_entries: Read, shard: int, shards: int) -> LiveRead | None:
    """The `LiveRead` of XREAD entries of shard `shard`'s feed when every entry is the append
    script's flat `game`, `seq`, `data`, `live` with `live` 1 and `feed_entries` reads it
    well-formed (same rules); else None (a catch-up's read: seen at its last entry). For a
    reply as Redis sends it: (id, fields) pairs of bytes (a `bytearray` seq, or a third item
    in a pair, which no reply holds, is not read as `feed_entries` reads it).

    No Python code runs per entry: each check is one pass of C (`map`, `list.count` of a
    slice of the fields laid end to end), each run of one game's entries is taken whole and
    each game id is checked once (about half the instructions of `feed_entries` on the same
    read, which builds every `FeedEntry`)."""
    if not game_entries:
        return None
    tail = game_entries[-1][1]
    if not (isinstance(tail, list) and len(tail) == 8 and tail[7] == b"1"):
        return None
    fields: list[Any] = list(map(_second, game_entries))
    n = len(fields)
    if set(map(type, fields)) != {list} or list(map(len, fields)).count(8) != n:
        return None
    # the fields laid end to end (each entry's eight from 8 * its place): a column is a slice
    # taken in C, no call and no tuple per entry (docs/profiles/projector-round-trips.md)
    flat: list[Any] = list(chain.from_iterable(fields))
    if any(flat[i::8].count(name) != n for i, name in _LIVE_NAMES):  # names in place, all live
        return None
    seqs: list[bytes] = flat[3::8]
    # `_SEQ`: 1-18 ASCII digits, the first not 0 (all digits: the least is not below b"1")
    if not all(map(bytes.isdigit, seqs)) or max(map(len, seqs)) > 18 or min(seqs) < b"1":
        return None
    lasts = _lasts(flat[1::8], seqs, shard, shards)
    if lasts is None:
        return None
    return LiveRead(game_entries[0][0].decode(), game_entries[-1][0].decode(), lasts)


def _lasts(games: list[bytes], seqs: list[bytes], shard: int, shards: int) -> dict[str, int] | None:
    """Each game's highest seq (games in their first entry's order, as `live_lasts` answers)
    of the entries' `game` and `seq` fields (seqs valid), None when a game id is not one of
    shard `shard` (`parse_feed_entry`'s rules). Taken per run of one game's entries (an
    append's events are one run)."""
    ids: dict[bytes, str] = {}
    lasts: dict[str, int] = {}
    start = 0
    for raw, run in groupby(games):
        end = start + len(list(run))
        game_id = ids.get(raw)
        if game_id is None:
            try:
                game_id = ids[raw] = raw.decode()
            except UnicodeDecodeError:
                return None
            if not _GAME_ID.fullmatch(game_id) or shard_of(game_id, shards) != shard:
                return None
        top = max(map(int, seqs[start:end]))
        if top > lasts.get(game_id, 0):
            lasts[game_id] = top
        start = end
    return lasts


class ReadEntries(Sequence[FeedEntry]):
    """The `FeedEntry`s of a read with no malformed entry (`live_read` said so), built by
    `feed_entries` when first looked at: a batch the appends projected is advanced without
    them. Equal to any sequence of the same entries."""

    __slots__ = ("_built", "_read", "_shard", "_shards")

    def __init__(self, game_entries: Read, shard: int, shards: int) -> None:
        self._read, self._shard, self._shards = game_entries, shard, shards
        self._built: list[FeedEntry] | None = None

    def _entries(self) -> list[FeedEntry]:
        if self._built is None:
            self._built = feed_entries(self._read, self._shard, self._shards)[0]
        return self._built

    def __len__(self) -> int:
        return len(self._read)

    @overload
    def __getitem__(self, index: int) -> FeedEntry: ...
    @overload
    def __getitem__(self, index: slice) -> list[FeedEntry]: ...
    def __getitem__(self, index: int | slice) -> FeedEntry | list[FeedEntry]:
        return self._entries()[index]

    def __iter__(self) -> Iterator[FeedEntry]:
        return iter(self._entries())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return self._entries() == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ReadEntries({self._entries()!r})"
