"""Stray projections (services/archive/usecases/strays.py): a projection written back into Redis
for a game that lives only in the archive is found, listed by a dry run, and deleted by a sweep
with `delete`, after which reads answer from the archive again; a game with events in Redis, or
a stray the archive cannot answer for, is never deleted."""

from __future__ import annotations

import json
from typing import Any

import pytest

from services.archive.usecases.strays import sweep_strays
from services.cli.strays import SweepReport, sweep_projections
from services.platform.settings import CommonSettings
from tests.archive.conftest import Stack, example_logs
from tests.redis_fixture import sync_client

pytestmark = pytest.mark.redis

GHOST = "ghost-game-with-a-projection-only"


def _ids_for_names(value: Any, ids: dict[str, str]) -> Any:
    """`value` with every string that is a player's name replaced by the player's id: what the
    projector wrote back without the names that left with the archive."""
    if isinstance(value, dict):
        return {k: _ids_for_names(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [_ids_for_names(v, ids) for v in value]
    return ids.get(value, value) if isinstance(value, str) else value


async def test_a_sweep_lists_then_deletes_the_stray_projection_of_an_archived_game(
    stack: Stack, archive_url: str
) -> None:
    hot, archive = stack.assembled.service.ports.hot_games, stack.assembled.service.ports.archive
    assert hot is not None
    assert archive is not None
    games = example_logs()
    game_id = sorted(games)[0]
    client = sync_client(stack.redis_url)
    key = stack.keys.projection(game_id)
    kept = client.hgetall(key)
    names = {v.decode(): k.decode() for k, v in client.hgetall(stack.keys.names(game_id)).items()}
    assert kept
    assert names

    # Every game has its events in Redis: nothing is a stray, and none is dropped.
    assert await sweep_strays(hot, archive, delete=True) == await sweep_strays(hot, archive, False)
    assert (await sweep_strays(hot, archive, delete=False)).archived == []
    assert await hot.drop_stray(game_id) is False
    assert client.hgetall(key) == kept

    assert await stack.seal() == {"sealed": len(games)}
    sealed_read = (await stack.http.get(f"/games/{game_id}/standings")).json()
    stray = dict(kept)
    for field in (b"standings", b"view"):  # the view is what the standings route serves
        stray[field] = json.dumps(_ids_for_names(json.loads(kept[field]), names)).encode()
    client.hset(key, mapping=stray)
    ghost_key = stack.keys.projection(GHOST)
    client.hset(ghost_key, mapping={"seq": "3", "status": "in_progress", "standings": "{}"})
    served = (await stack.http.get(f"/games/{game_id}/standings")).json()
    assert served != sealed_read  # the stray is read before the archive: ids, not names

    listed = await sweep_strays(hot, archive, delete=False)
    assert (listed.archived, listed.deleted, listed.unarchived) == ([game_id], [], [GHOST])
    assert client.exists(key)
    assert client.exists(ghost_key)
    settings = CommonSettings(redis_url=stack.redis_url, archive_url=archive_url)  # type: ignore[arg-type]
    report = await sweep_projections(settings, delete=False)
    assert report.code == 1
    assert f"stray projections of archived games (1): {game_id}" in report.lines
    assert any("--delete" in line for line in report.lines)

    swept = await sweep_strays(hot, archive, delete=True)
    assert (swept.archived, swept.deleted, swept.unarchived) == ([game_id], [game_id], [GHOST])
    assert not client.exists(key)
    assert client.exists(ghost_key)  # no tier could answer for it: kept, reported
    assert (await stack.http.get(f"/games/{game_id}/standings")).json() == sealed_read

    again = await sweep_projections(settings, delete=True)
    assert again.code == 1
    assert again.lines == (
        f"kept, projections with no events in Redis nor the archive (1): {GHOST}",
    )
    client.delete(ghost_key)
    clean = await sweep_projections(settings, delete=False)
    assert clean.code == 0
    assert clean.lines[0].startswith("no stray projection")
    client.close()


async def test_without_an_archive_the_sweep_exits_78_naming_the_setting(
    clean_redis_url: str,
) -> None:
    report = await sweep_projections(CommonSettings(redis_url=clean_redis_url), delete=True)
    assert report == SweepReport(
        78, ("sweep-projections needs SCORELEDGER_ARCHIVE_URL (the archive's URL)",)
    )
