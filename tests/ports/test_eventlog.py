"""The event-log and credentials contract: every backend appends, dedupes, refuses and reads
the same way, and stores the write-token digest only with the creating append."""

from __future__ import annotations

import pytest

from services.ports.credentials import CredentialLookup
from services.ports.errors import CredentialMismatch, HeadMismatch, VersionConflict
from services.ports.eventlog import AppendRequest
from tests.pipeline.factory import corrected, game_log, started
from tests.ports.conftest import Backend


async def test_append_then_read_back_in_order(backend: Backend) -> None:
    log = game_log("g1", 4)
    result = await backend.log.append("g1", log)
    assert result.version == 4
    assert [(e.seq, e.duplicate) for e in result.events] == [
        (1, False),
        (2, False),
        (3, False),
        (4, False),
    ]
    assert all(e.feed_id for e in result.events)
    assert await backend.log.version("g1") == 4
    read = await backend.log.read("g1")
    assert [e.event_id for e in read] == [e.event_id for e in log]
    assert all(e.recorded_at is not None for e in read)
    assert [e.seq for e in await backend.log.read("g1", 2, 3)] == [2, 3]
    assert len(await backend.log.read_raw("g1", 3)) == 2
    assert await backend.log.version("nope") == 0
    assert await backend.log.versions(["nope", "g1"]) == [0, 4]
    assert await backend.log.read("nope") == []


async def test_duplicate_event_id_answers_the_original_seq_and_writes_nothing(
    backend: Backend,
) -> None:
    log = game_log("g1", 3)
    await backend.log.append("g1", log)
    again = await backend.log.append("g1", log[1:2])
    assert [(e.seq, e.duplicate, e.feed_id) for e in again.events] == [(2, True, None)]
    assert again.version == 3
    assert await backend.log.version("g1") == 3


async def test_duplicate_within_one_batch_is_written_once(backend: Backend) -> None:
    log = game_log("g1", 2)
    result = await backend.log.append("g1", [log[0], log[1], log[1]])
    assert [(e.seq, e.duplicate) for e in result.events] == [(1, False), (2, False), (2, True)]
    assert await backend.log.version("g1") == 2


async def test_a_version_conflict_writes_nothing_of_the_batch(backend: Backend) -> None:
    log = game_log("g1", 4)
    await backend.log.append("g1", log[:2])
    with pytest.raises(VersionConflict) as conflict:
        await backend.log.append("g1", [log[2], corrected("g1", 5, "ann", 1)])
    assert (conflict.value.expected, conflict.value.actual) == (4, 3)
    assert await backend.log.version("g1") == 2
    with pytest.raises(VersionConflict) as stale:
        await backend.log.append("g1", [corrected("g1", 2, "ann", 1)])
    assert (stale.value.expected, stale.value.actual) == (1, 2)


async def test_a_foreign_game_id_is_refused(backend: Backend) -> None:
    with pytest.raises(ValueError, match="game_id"):
        await backend.log.append("g2", [started("g1")])
    assert await backend.log.version("g2") == 0


async def test_the_credential_is_stored_with_the_creating_append(backend: Backend) -> None:
    assert await backend.credentials.lookup("g1") == CredentialLookup(None, 0)
    log = game_log("g1", 3)
    await backend.log.append("g1", log[:1], credential="d1")
    assert await backend.credentials.lookup("g1") == CredentialLookup("d1", 1)
    await backend.log.append("g1", log[1:2], credential="d1")
    assert await backend.credentials.lookup("g1") == CredentialLookup("d1", 2)


async def test_an_append_with_another_credential_writes_nothing(backend: Backend) -> None:
    log = game_log("g1", 3)
    await backend.log.append("g1", log[:1], credential="d1")
    for batch in (log[1:2], log[:1]):  # a new event, and a duplicate of the creating one
        with pytest.raises(CredentialMismatch):
            await backend.log.append("g1", batch, credential="other")
    assert await backend.credentials.lookup("g1") == CredentialLookup("d1", 1)
    outcomes = await backend.log.append_many([AppendRequest("g1", log[1:2], "other")])
    assert isinstance(outcomes[0], CredentialMismatch)


async def test_a_game_stored_without_credential_takes_no_credentialed_append(
    backend: Backend,
) -> None:
    log = game_log("g1", 2)
    await backend.log.append("g1", log[:1])  # a game from before write tokens
    with pytest.raises(CredentialMismatch):
        await backend.log.append("g1", log[1:], credential="d1")
    assert await backend.credentials.lookup("g1") == CredentialLookup(None, 1)


async def test_a_creator_authorized_on_an_empty_game_cannot_write_into_one_created_meanwhile(
    backend: Backend,
) -> None:
    log = game_log("g1", 2)
    await backend.log.append("g1", log[:1], credential="first")
    with pytest.raises(CredentialMismatch):  # it saw no game, chose "late", sends seq 2
        await backend.log.append("g1", log[1:], credential="late")
    assert await backend.log.version("g1") == 1


async def test_a_refused_creation_stores_no_credential(backend: Backend) -> None:
    with pytest.raises(VersionConflict):
        await backend.log.append("g1", [started("g1"), corrected("g1", 3, "ann", 1)], "d1")
    assert await backend.credentials.lookup("g1") == CredentialLookup(None, 0)


async def test_lookup_many_in_order(backend: Backend) -> None:
    await backend.log.append("a", [started("a")], credential="da")
    await backend.log.append("b", game_log("b", 2))
    assert await backend.credentials.lookup_many(["b", "zz", "a"]) == [
        CredentialLookup(None, 2),
        CredentialLookup(None, 0),
        CredentialLookup("da", 1),
    ]
    assert await backend.credentials.lookup_many([]) == []


async def test_append_many_gives_one_outcome_per_request_in_order(backend: Backend) -> None:
    a, b = game_log("a", 2), game_log("b", 2)
    outcomes = await backend.log.append_many(
        [
            AppendRequest("a", a[:1], "da"),
            AppendRequest("b", b[1:]),  # seq 2 of an empty game: conflict
            AppendRequest("a", a[1:]),  # after the first request of its game
            AppendRequest("b", b[:1]),
        ]
    )
    assert isinstance(outcomes[1], VersionConflict)
    assert [o.version for o in outcomes if not isinstance(o, VersionConflict)] == [1, 2, 1]
    assert (await backend.credentials.lookup("a")).digest == "da"
    assert await backend.log.append_many([]) == []


async def test_list_games_sorted_and_paged(backend: Backend) -> None:
    games = [f"g{i:02}" for i in range(7)]
    for g in games:
        await backend.log.append(g, [started(g)])
    first = await backend.log.list_games(limit=4)
    assert first.games == tuple(games[:4])
    assert first.next_after == "g03"
    rest = await backend.log.list_games(after=first.next_after, limit=4)
    assert rest.games == tuple(games[4:])
    assert rest.next_after is None
    assert (await backend.log.list_games()).games == tuple(games)


async def test_stored_seqs_answers_the_version_and_each_ids_seq(backend: Backend) -> None:
    log = game_log("g1", 3)
    await backend.log.append("g1", log)
    ids = [str(log[2].event_id), "00000000-0000-0000-0000-000000000000", str(log[0].event_id)]
    assert await backend.log.stored_seqs("g1", ids) == (3, [3, None, 1])
    assert await backend.log.stored_seqs("nope", ids[:1]) == (0, [None])
    assert await backend.log.stored_seqs("g1", []) == (3, [])


async def test_an_append_expecting_another_head_writes_nothing(backend: Backend) -> None:
    """The expected head (docs/decisions/0011-faults-are-answered-not-crashed.md): at an equal version, a stored last event other than the
    one named refuses the batch (`HeadMismatch`, a `VersionConflict`), writing nothing."""
    mine, theirs = game_log("g1", 4), game_log("g1", 4, seed=1)
    await backend.log.append("g1", theirs[:3])
    with pytest.raises(HeadMismatch) as refused:
        await backend.log.append_one(AppendRequest("g1", mine[3:], None, str(mine[2].event_id)))
    assert isinstance(refused.value, VersionConflict)
    assert refused.value.version == 3
    with pytest.raises(HeadMismatch):  # a game with no event has no head
        await backend.log.append_one(
            AppendRequest("g2", [started("g2")], None, str(mine[0].event_id))
        )
    outcomes = await backend.log.append_many(
        [
            AppendRequest("g1", mine[3:], None, str(mine[2].event_id)),
            AppendRequest("g1", theirs[3:], None, str(theirs[2].event_id)),
        ]
    )
    assert isinstance(outcomes[0], HeadMismatch)
    assert not isinstance(outcomes[1], VersionConflict)
    assert outcomes[1].version == 4
    stored = [e.event_id for e in await backend.log.read("g1")]
    print(f"\n{backend.name}: head mismatches refused 3, stored {len(stored)} (theirs)")
    assert stored == [e.event_id for e in theirs]
    assert await backend.log.version("g2") == 0


async def test_append_text_is_none_or_the_stored_lines_characters(backend: Backend) -> None:
    log = game_log("g1", 4)
    await backend.log.append("g1", log[:1])
    result = await backend.log.append("g1", log[1:])
    stored = await backend.log.read_raw("g1", 2, 4)
    assert result.text is None or result.text == sum(len(line) for line in stored)
    if backend.name == "redis":
        assert result.text is not None  # ASCII lines: the cache counts them, no walk
    wide = corrected("g1", 5, "ann", 1).model_copy(update={"seq": 5})
    payload = wide.payload.model_copy(update={"reason": "\U0001f600" * 10})
    assert (
        await backend.log.append("g1", [wide.model_copy(update={"payload": payload})])
    ).text is None
