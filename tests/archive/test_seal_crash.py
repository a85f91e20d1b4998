"""A crash between any two sealing steps loses nothing: every read answers as before the
crash, from Redis or from the archive, and the next sealing pass finishes the job."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from services.archive.doors.archiver import seal_all
from services.archive.usecases.seal import Seal
from tests.archive.conftest import Stack, example_logs
from tests.archive.reads import list_routes, read_routes

pytestmark = pytest.mark.redis


class Crash(RuntimeError):
    """The process died here."""


class CrashAfter:
    """A port whose method `name` does its work, then the process "dies" (raises `Crash`)."""

    def __init__(self, inner: Any, name: str) -> None:
        self.inner, self.name = inner, name

    def __getattr__(self, attr: str) -> Any:
        real = getattr(self.inner, attr)
        if attr != self.name:
            return real

        async def crashing(*args: Any, **kwargs: Any) -> Any:
            await real(*args, **kwargs)
            raise Crash(attr)

        return crashing


STEPS = [("hot", "snapshot"), ("archive", "put"), ("archive", "get"), ("hot", "remove")]


@pytest.mark.parametrize(("port", "step"), STEPS)
async def test_a_crash_after_each_step_loses_nothing(stack: Stack, port: str, step: str) -> None:
    games = example_logs()
    before = {g: await read_routes(stack.http, g) for g in games}
    lists = await list_routes(stack.http)
    seal = stack.assembled.service.cases.seal
    assert seal is not None
    crashing = Seal(
        seal.log,
        seal.projections,
        CrashAfter(seal.hot, step) if port == "hot" else seal.hot,
        CrashAfter(seal.archive, step) if port == "archive" else seal.archive,
        seal.after_s,
    )
    for game_id in games:
        with pytest.raises(Crash):
            await crashing.game(game_id, datetime.now(UTC))
        removed = step == "remove"
        assert (stack.redis_keys_of(game_id) == []) is removed
    for game_id in games:
        assert await read_routes(stack.http, game_id) == before[game_id]
    assert await list_routes(stack.http) == lists

    again = await seal_all(seal, 100)
    assert again == ({} if step == "remove" else {"sealed": len(games)})
    for game_id in games:
        assert stack.redis_keys_of(game_id) == []
        assert await read_routes(stack.http, game_id) == before[game_id]
    assert await list_routes(stack.http) == lists
