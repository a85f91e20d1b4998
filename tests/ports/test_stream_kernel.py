"""The stream kernel is shared: every kind's envelope is the kernel's (field order, hence the
stored JSON, unchanged), every side log append is the one core, a new kind is one contract
class plus one `SideStream` line (a tiny kind defined here appends and conflicts like a
tournament), and the bench's loader stores the layout the event log stores."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any, ClassVar

import pytest
from pydantic import TypeAdapter

from contracts.envelope import Envelope, Payload, StreamBody, StreamHead
from contracts.events import parse_event
from contracts.league import LEAGUE_ENVELOPES, LeagueEnvelope
from contracts.tournament import TOURNAMENT_ENVELOPES, TournamentEnvelope
from services.adapters.memory.sidelog import MemorySideLog
from services.adapters.redis.connect import RedisClient, connect
from services.adapters.redis.keys import Keys
from services.ports.errors import CredentialMismatch, VersionConflict
from services.ports.sidelog import SideLog, SideStream

EXAMPLES = Path(__file__).parents[2] / "contracts" / "examples"
TAIL = (
    '"seq":1,"type":"{type}","schema_version":1,"occurred_at":"2026-12-01T10:00:00Z",'
    '"recorded_at":null,"actor":"organiser","correlation_id":null,"causation_id":null,'
    '"payload":{{"title":"Club"}}}}'
)


class PuzzleStarted(Payload):
    """The tiny kind's one event."""

    TYPE: ClassVar[str] = "puzzle.started"
    title: str


class PuzzleStream(StreamHead):
    """The tiny kind's stream name: the only field a kind adds to the kernel."""

    STREAM_FIELD: ClassVar[str] = "puzzle_id"
    puzzle_id: str


class PuzzleEnvelope(StreamBody, PuzzleStream):
    """The tiny kind's envelope."""

    payload: PuzzleStarted


PUZZLES: SideStream[PuzzleEnvelope] = SideStream(
    "puzzle_id", TypeAdapter(PuzzleEnvelope).validate_json, "@puzzle/"
)
"""The tiny kind's registry line."""


def _puzzle(seq: int, puzzle_id: str = "p-1") -> PuzzleEnvelope:
    return PuzzleEnvelope(
        event_id=uuid.uuid5(uuid.NAMESPACE_URL, f"{puzzle_id}/{seq}"),
        puzzle_id=puzzle_id,
        seq=seq,
        type=PuzzleStarted.TYPE,
        schema_version=1,
        occurred_at="2026-12-01T10:00:00Z",  # type: ignore[arg-type]
        actor="organiser",
        payload=PuzzleStarted(title="Club"),
    )


@pytest.mark.parametrize("envelope", [Envelope, TournamentEnvelope, LeagueEnvelope, PuzzleEnvelope])
def test_every_kind_is_the_kernel_with_its_stream_name_second(envelope: type[Any]) -> None:
    fields = list(envelope.model_fields)
    assert fields[0] == "event_id"
    assert fields[1] == envelope.STREAM_FIELD
    assert fields[2:] == list(StreamBody.model_fields)[1:]
    assert issubclass(envelope, StreamBody)


def test_the_stored_json_of_each_kind_is_unchanged() -> None:
    event_id = "00000000-0000-4000-8000-000000000001"
    for kind, models in (("tournament", TOURNAMENT_ENVELOPES), ("league", LEAGUE_ENVELOPES)):
        raw = {
            "event_id": event_id,
            f"{kind}_id": "club",
            "seq": 1,
            "type": f"{kind}.created",
            "schema_version": 1,
            "occurred_at": "2026-12-01T10:00:00Z",
            "actor": "organiser",
            "payload": {"title": "Club", "game": "penumbra", "rounds": 3}
            if kind == "tournament"
            else {"title": "Club", "game": "penumbra"},
        }
        text = models[f"{kind}.created"].model_validate(raw).model_dump_json()
        head = f'{{"event_id":"{event_id}","{kind}_id":"club","seq":1,"type":"{kind}.created",'
        assert text.startswith(head)
        assert ',"recorded_at":null,"actor":"organiser","correlation_id":null,' in text
    puzzle = _puzzle(1).model_dump_json()
    assert puzzle == (
        f'{{"event_id":"{_puzzle(1).event_id}","puzzle_id":"p-1",'
        + TAIL.format(type="puzzle.started")
    )
    for path in sorted(EXAMPLES.glob("*.jsonl")):
        for line in path.read_text().splitlines()[:20]:
            sent, stored = (
                json.loads(line),
                json.loads(parse_event(json.loads(line)).model_dump_json()),
            )
            assert list(stored) == list(sent)  # the envelope's keys, in the stored order
            assert {k: v for k, v in stored.items() if k != "payload"} == {
                k: v for k, v in sent.items() if k != "payload"
            }


@pytest.fixture
def puzzles(redis_or_memory: RedisClient | None) -> SideLog[PuzzleEnvelope]:
    if redis_or_memory is None:
        return MemorySideLog(PUZZLES)
    from services.adapters.redis.sidelog import RedisSideLog

    return RedisSideLog(redis_or_memory, Keys(4), PUZZLES)


async def test_a_new_kind_is_one_contract_and_one_registry_line(
    puzzles: SideLog[PuzzleEnvelope],
) -> None:
    first, second = _puzzle(1), _puzzle(2)
    assert (await puzzles.append("p-1", [first], credential="d1")).version == 1
    with pytest.raises(CredentialMismatch):
        await puzzles.append("p-1", [second], credential="d2")
    with pytest.raises(VersionConflict):
        await puzzles.append("p-1", [_puzzle(3)], credential="d1")
    with pytest.raises(ValueError, match=r"puzzle_id: event .* is for p-2, not p-1"):
        await puzzles.append("p-1", [_puzzle(2, "p-2")], credential="d1")
    again = await puzzles.append("p-1", [first, second], credential="d1")
    assert [(e.seq, e.duplicate) for e in again.events] == [(1, True), (2, False)]
    assert [e.seq for e in await puzzles.read("p-1")] == [1, 2]
    assert await puzzles.streams(10) == ["p-1"]


@pytest.mark.redis
async def test_the_bench_loader_stores_the_event_logs_layout(clean_redis_url: str) -> None:
    from services.adapters.redis.eventlog import RedisEventLog
    from services.bench.layout import Loader

    lines = (EXAMPLES / "penumbra-3p.jsonl").read_text().splitlines()
    loader = Loader(clean_redis_url)
    loader.load([lines], chunk=7)
    loader.close()
    client = connect(clean_redis_url)
    try:
        by_loader = await _layout(client)
        await client.flushdb()
        log = RedisEventLog(client, Keys(16))
        events = [parse_event(json.loads(line)) for line in lines]
        for i in range(0, len(events), 7):
            await log.append(events[0].game_id, events[i : i + 7])
        assert await _layout(client) == by_loader
    finally:
        await client.aclose()


async def _layout(client: Any) -> dict[str, Any]:
    """Every key with its type and what identifies its content (stream entries' ids and
    field names, hash contents, set members), not the clock-made values."""
    out: dict[str, Any] = {}
    async for raw in client.scan_iter(count=1000):
        key = raw.decode()
        kind = (await client.type(key)).decode()
        if kind == "stream":
            entries = await client.xrange(key)
            ids = [e[0] for e in entries] if ":game:" in key else len(entries)
            out[key] = (kind, ids, [sorted(f) for _, f in entries])
        elif kind == "hash":
            out[key] = (kind, await client.hgetall(key))
        elif kind == "zset":
            out[key] = (kind, await client.zrange(key, 0, -1))
        else:
            out[key] = (kind,)
    return out
