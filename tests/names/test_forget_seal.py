"""`forget` and sealing never interleave: a seal that would run between forget's reads of
the two tiers waits for the forget (or the forget for the seal), so the name is in neither
tier afterwards and forget's report says where it changed it (docs/forget.md)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from contracts.names import FORGOTTEN
from services.archive.adapters.memory import MemoryArchive
from services.archive.ports.cold import SealedGame
from tests.names import test_forget
from tests.names.helpers import GAME, PLAYER, holds_name, lines
from tests.names.test_forget import App

app = test_forget.app
"""The memory service with the example game projected final (`test_forget.app`)."""


def _seal_after_first_get(app: App, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make the archive's next read start a seal of the game right after it answers (as a
    seal that ran between forget's read of the archive and its read of Redis); the seal's
    results are appended to the list returned."""
    archive: MemoryArchive = app.archive
    original: Callable[[str], Awaitable[SealedGame | None]] = archive.get
    results: list[str] = []

    async def get(game_id: str) -> Any:
        got = await original(game_id)
        if not results:
            seal = app.service.cases.seal
            assert seal is not None
            results.append("started")
            results.append(await seal.game(GAME, datetime(2100, 1, 1, tzinfo=UTC)))
        return got

    monkeypatch.setattr(archive, "get", get)
    return results


async def test_a_seal_overlapping_a_forget_leaves_the_name_in_no_tier(
    app: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    results = _seal_after_first_get(app, monkeypatch)
    done = await app.forget()
    assert results[0] == "started"  # the seal did try to run inside the forget
    assert done.already is False
    assert done.tiers  # the report names the tier it changed
    game = app.archive.games.get(GAME)
    if game is not None:  # sealed (before or after the forget): forgotten there too
        assert game.names[PLAYER] == FORGOTTEN
    assert [d for d in app.stored() if holds_name(d)] == []
    again = await app.forget()
    assert again.already is True
    await app.seal()  # the lock was let go: the next seal runs
    assert app.archive.games[GAME].names[PLAYER] == FORGOTTEN
    assert [d for d in app.stored() if holds_name(d)] == []


async def test_a_seal_waits_for_no_forget_it_reports_busy_and_the_next_pass_seals(
    app: App,
) -> None:
    hot = app.service.ports.hot_games
    seal = app.service.cases.seal
    assert hot is not None
    assert seal is not None
    assert await hot.lock(GAME, "forget-elsewhere", 60_000)
    assert await seal.game(GAME, datetime(2100, 1, 1, tzinfo=UTC)) == "busy"
    assert GAME not in app.archive.games
    await hot.unlock(GAME, "forget-elsewhere")
    assert await seal.game(GAME, datetime(2100, 1, 1, tzinfo=UTC)) == "sealed"


async def test_a_forget_kept_waiting_past_its_bound_changes_nothing(app: App) -> None:
    from services.usecases.names import GameBusy

    hot = app.service.ports.hot_games
    forget = app.service.cases.forget
    assert hot is not None
    assert forget is not None
    forget.lock_wait_s = 0.2
    assert await hot.lock(GAME, "seal-elsewhere", 60_000)
    with pytest.raises(GameBusy, match="being sealed"):
        await forget.forget(GAME, PLAYER)
    assert app.backend.names[GAME][PLAYER] != FORGOTTEN


async def test_a_restore_overlapping_a_forget_brings_no_name_back(
    app: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A write to an archived game restores it to Redis: it reads the archived copy, then
    # writes it back. A forget between the two found Redis empty and changed the archive only;
    # the restore then wrote the names it had read. Both hold the tier lock now.
    import asyncio

    from contracts.events import parse_event_json
    from services.archive.usecases.tiered import ArchiveReader, TieredEventLog

    await app.seal()
    hot = app.service.ports.hot_games
    forget = app.service.cases.forget
    assert hot is not None
    assert forget is not None
    started, go = asyncio.Event(), asyncio.Event()
    original = hot.restore

    async def paused(game: SealedGame) -> bool:
        started.set()
        await go.wait()
        return await original(game)

    monkeypatch.setattr(hot, "restore", paused)
    log = TieredEventLog(app.service.ports.log, hot, ArchiveReader(app.archive))
    first = parse_event_json(lines()[0])
    write = asyncio.create_task(log.append(GAME, [first]))  # a creation sent again
    await asyncio.wait_for(started.wait(), 10)
    forgetting = asyncio.create_task(forget.forget(GAME, PLAYER))
    await asyncio.sleep(0.3)  # the forget runs now, or waits for the restore's lock
    go.set()
    await write
    done = await forgetting
    assert done.already is False
    assert app.backend.names[GAME][PLAYER] == FORGOTTEN  # restored, then forgotten there
    assert app.archive.games[GAME].names[PLAYER] == FORGOTTEN
    assert [d for d in app.stored() if holds_name(d)] == []
