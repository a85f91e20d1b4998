"""The reseed use case on in-memory adapters (what a rebuild over a trimmed feed runs): every
game of the shard refolded from its stream, a log that does not fold held at its bad event, a
held game left for `scoreledger release`, the checkpoint moved only at the end."""

from __future__ import annotations

import json

from services.adapters.redis.keys import shard_of
from services.bootstrap import memory_ports
from services.ports.projections import ProjectionBatch, ProjectionOp
from services.usecases.reseed import Reseed
from tests.pipeline.factory import corrected, game_log
from tests.pipeline.helpers import offline_standings

SHARDS = 4
SHARD = 2
GOOD, BAD, HELD, BEHIND = [g for g in (f"r{i}" for i in range(80)) if shard_of(g, SHARDS) == SHARD][
    :4
]
ELSEWHERE = next(g for g in (f"x{i}" for i in range(80)) if shard_of(g, SHARDS) != SHARD)


async def test_a_reseed_refolds_the_shards_games_from_their_streams() -> None:
    ports = memory_ports(SHARDS)
    logs = {g: game_log(g, 12, seed=i) for i, g in enumerate((GOOD, HELD, BEHIND, ELSEWHERE))}
    logs[BAD] = [*game_log(BAD, 3), corrected(BAD, 4, "nobody", 1), *game_log(BAD, 6)[4:]]
    for game_id, events in logs.items():
        await ports.log.append(game_id, events)  # trusted: the bad event bypasses ingest
    why = '{"seq": 7, "rule": "r.x", "message": "m"}'
    ahead = [ProjectionOp("hold", HELD, 0, 7, reason_json=why)]
    ahead.append(ProjectionOp("apply", BEHIND, 0, 5, "in_progress", "trickerion", "{}"))
    await ports.projections.write(ProjectionBatch(SHARD, "", ahead, "T"), 1000)
    assert await ports.projections.checkpoint(SHARD) == "0-0"  # "" leaves the checkpoint
    reseed = Reseed(ports.log, ports.projections, ports.letters, SHARDS, chunk=2)
    written = await reseed.shard(SHARD, "7-3")
    assert written == 3  # GOOD, BAD, and BEHIND from its stored seq 5 to 12
    assert await ports.projections.checkpoint(SHARD) == "7-3"
    good = await ports.projections.get(GOOD)
    assert good is not None
    assert json.loads(good.standings_json) == offline_standings(logs[GOOD])
    behind = await ports.projections.get(BEHIND)
    assert behind is not None
    assert behind.seq == 12
    assert json.loads(behind.standings_json) == offline_standings(logs[BEHIND])
    bad = await ports.projections.get(BAD)
    assert bad is not None
    assert bad.seq == 3
    assert json.loads(bad.standings_json) == offline_standings(logs[BAD][:3])
    assert (await ports.projections.heads([BAD]))[0].held == 4
    assert [h.game_id for h in (await ports.projections.held(10))[1]] == sorted([BAD, HELD])
    assert (await ports.projections.heads([HELD]))[0].held == 7  # left for release
    assert await ports.projections.get(HELD) is None
    assert await ports.projections.get(ELSEWHERE) is None  # another shard's game
    letters = await ports.letters.read()
    assert [(x.letter.context["game"], x.letter.reason["rule"]) for x in letters] == [
        (BAD, "correction.unknown_player")
    ]
