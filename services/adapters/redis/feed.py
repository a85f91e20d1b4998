"""Reading one shard feed entry (fields `game`, `seq`, `data`, written by the append script).

An entry that is not what the append script writes (a hostile or broken `XADD`, a bug) becomes a
`MalformedFeedEntry` naming the rule and field, instead of an exception that would lose the
whole batch (docs/decisions/0011-faults-are-answered-not-crashed.md: "a malformed feed entry drops its whole batch silently").

Rules: `feed.field_missing` (`game`, `seq`, `data`), `feed.not_utf8` (`game`, `seq`),
`feed.seq_invalid` (not a positive integer), `feed.game_id_invalid` (not a game id, see
`contracts.envelope.GameId`), `feed.wrong_shard` (a game of another shard: its projection lives
in another Cluster slot).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from services.adapters.redis.keys import shard_of
from services.ports.eventlog import FeedEntry, MalformedFeedEntry

MAX_RAW_BYTES = 65_536
"""Most bytes of a malformed entry kept in its dead letter (the rest is cut, its size noted)."""

_GAME_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_SEQ = re.compile(r"[1-9][0-9]{0,17}")
_SEQ_BYTES = re.compile(rb"[1-9][0-9]{0,17}")


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


def feed_entries(
    game_entries: list[tuple[bytes, dict[bytes, bytes]]], shard: int, shards: int
) -> tuple[list[FeedEntry], list[MalformedFeedEntry]]:
    """XREAD entries of shard `shard`'s feed (fields `game`, `seq`, `data`): the `FeedEntry`s,
    and the malformed ones (dead-lettered alone by `Project.apply`), each in feed order."""
    good: list[FeedEntry] = []
    bad: list[MalformedFeedEntry] = []
    games: dict[bytes, str] = {}  # `game` fields found valid for this shard in this read
    for entry_id, fields in game_entries:
        # A game met before in the read (a catch-up reads each game's events in a row): its id
        # is checked already; only the seq is (bytes of ASCII digits: the same rule).
        game_id = games.get(fields.get(b"game", b""))
        seq, data = fields.get(b"seq"), fields.get(b"data")
        if (
            game_id is not None
            and seq is not None
            and data is not None
            and _SEQ_BYTES.fullmatch(seq)
        ):
            live = fields.get(b"live") == b"1"
            good.append(FeedEntry(entry_id.decode(), game_id, int(seq), data, live))
            continue
        entry = parse_feed_entry(entry_id, fields, shard, shards)
        if isinstance(entry, MalformedFeedEntry):
            bad.append(entry)
        else:
            good.append(entry)
            games[fields[b"game"]] = entry.game_id
    return good, bad
