"""The dead-letter port: every input that could not be recorded or projected, kept whole.

A letter holds the raw input as received, the reason (a `Refusal`'s kind/rule/field/message;
an inbox letter adds the members of the problem HTTP answers for it: `status`, `type`,
`title`, `detail`, `index`, `errors`, ...), its source (`inbox`, `projector`; an HTTP refusal
is answered, not lettered), the time, and context such as `game`, `seq`, `feed_id`,
`inbox_id`. Letters are kept `dead_letter_keep_s` (`trim`).

A forget replaces the player's name in the raw of the game's letters (`scrub`, `scrubbed`):
the letter is stored again, the rest of it unchanged, with context `scrubbed_from` (the id
it had when first stored); so it moves to the end of the read order (docs/forget.md).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class DeadLetter:
    """One refused input; `reason` is JSON-ready, `context` values are short strings or ints."""

    raw: bytes
    reason: Mapping[str, Any]
    source: str
    context: Mapping[str, str | int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class StoredLetter:
    """A letter as stored: its id, the letter, and the ISO 8601 UTC time it was stored."""

    letter_id: str
    letter: DeadLetter
    time: str


SCRUBBED_FROM = "scrubbed_from"
"""Context field of a letter stored again by `scrub`: the id it was first stored under."""


def literals(text: str) -> tuple[bytes, ...]:
    """`text` as a JSON string literal (quotes included), escaped as `json.dumps` does and as
    raw UTF-8 (one of them when both are the same)."""
    return tuple(dict.fromkeys(json.dumps(text, ensure_ascii=a).encode() for a in (True, False)))


_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
"""A JSON string literal in UTF-8 bytes, its escapes included (a raw may be invalid JSON
around it: only the literal is read)."""

_UTF8 = ("utf-8", "utf-8-sig")


def scrubbed(
    letter: DeadLetter, game_id: str, replacements: Sequence[tuple[str, str]]
) -> bytes | None:
    """`letter`'s raw with each `(old, new)` pair's string replaced, when the letter is of
    `game_id`: its context `game` is the id, or its raw holds the id's JSON string literal
    (`literals`; the raw may be invalid JSON, so it is not parsed whole). `old` and `new` are
    JSON string literals; every string literal of the raw that reads as `old`'s value is
    replaced by `new`, however it is escaped (`"Nov\\u00E1k"`, `"Nov\\u00e1k"`, `"Novák"`),
    and `old` itself wherever it stands. A raw in UTF-16 or UTF-32 (which `json.loads`
    reads) is decoded, replaced and encoded back the same way. None: not of the game, or
    nothing replaced. Source: docs/forget.md (dead letters)."""
    raw = letter.raw
    if letter.context.get("game") != game_id and not any(g in raw for g in literals(game_id)):
        return None
    encoding = json.detect_encoding(raw)
    if encoding not in _UTF8:  # the raw is another encoding json.loads reads
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError:
            return None
        out = _replaced(text.encode(), replacements).decode().encode(encoding)
        return None if out == raw else out
    out = _replaced(raw, replacements)
    return None if out == raw else out


def _replaced(raw: bytes, replacements: Sequence[tuple[str, str]]) -> bytes:
    """`raw` (UTF-8, maybe invalid around its string literals) with every JSON string literal
    reading as an `old` value replaced by its `new` literal, then each `old` literal too."""
    by_value: dict[str, bytes] = {}
    for old, new in replacements:
        try:
            value = json.loads(old)
        except ValueError:
            continue
        if isinstance(value, str):
            by_value[value] = new.encode()

    def one(match: re.Match[bytes]) -> bytes:
        literal = match.group(0)
        try:
            value = json.loads(literal)
        except ValueError:  # an escape JSON does not know, or bytes that are not UTF-8
            return literal
        return by_value.get(value, literal) if isinstance(value, str) else literal

    out = _STRING.sub(one, raw) if by_value else raw
    for old, new in replacements:
        out = out.replace(old.encode(), new.encode())
    return out


class DeadLetters(Protocol):
    """Implementations: `adapters.redis.deadletters.RedisDeadLetters`, `adapters.memory`."""

    async def put(self, letter: DeadLetter) -> str:
        """Store one letter (stamped with the time now); returns its id."""
        ...

    async def read(self, count: int = 100) -> list[StoredLetter]:
        """The oldest `count` letters, oldest first."""
        ...

    async def put_once(self, letter: DeadLetter, once: str, keep_s: float) -> str | None:
        """Store `letter` unless a letter with the same `once` key (e.g. `inbox:<entry id>`)
        was stored in the last `keep_s` seconds, atomically: a redelivered input is lettered
        exactly once. Returns the new letter's id, or None when it was already lettered."""
        ...

    async def trim(self, keep_s: float, now_ms: int) -> int:
        """Remove letters stored more than `keep_s` seconds before `now_ms` (Unix ms);
        returns how many (retention: `IngestSettings.dead_letter_keep_s`). A letter stored
        again by `scrub` is trimmed by the time it was first stored."""
        ...

    async def scrub(self, game_id: str, replacements: Sequence[tuple[str, str]]) -> int:
        """Replace each `(old, new)` text in the raw of every letter of `game_id` (`scrubbed`)
        stored before the call, in every letter stream (an integration's copies too): such a
        letter is stored again with the new raw, its reason, source, time and context kept,
        plus `scrubbed_from` (its first id; kept when scrubbed again), and the old one
        removed, in one atomic step per letter (`forget`: docs/forget.md). Returns how many
        letters changed (a letter and its integration copy count as two)."""
        ...
