"""Helpers of the several-projectors tests: projector processes, the invariant after a fault
run (live standings equal `score` of `export` for every game, none behind, ledger sums equal
the totals), the lease holders, and games appended to start from."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from contracts.envelope import Envelope
from domain.fold import fold
from domain.standings import score_entries
from services.adapters.redis.connect import RedisClient
from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.keys import Keys
from services.adapters.redis.lease import lease_key
from services.cli.offline import score_file
from services.cli.remote import export_game
from services.platform.settings import CommonSettings
from tests.pipeline.factory import game_log
from tests.pipeline.helpers import projected_seqs, wait_until

ROOT = Path(__file__).resolve().parents[2]


async def appended_games(
    store: RedisEventLog, prefix: str, events: int, upto: int
) -> dict[str, list[Envelope]]:
    """Twelve simulated games `{prefix}-0..11` of `events` events each (seeded by their
    number), their first `upto` appended to `store`; game id -> all its events."""
    logs = {f"{prefix}-{i}": game_log(f"{prefix}-{i}", events, seed=i) for i in range(12)}
    for game_id, log in logs.items():
        await store.append(game_id, log[:upto])
    return logs


def start_projector(
    redis_url: str, shards: int, stderr: IO[bytes] | int = subprocess.DEVNULL, **env: str
) -> subprocess.Popen[bytes]:
    """`python -m services.cli.projector` on `redis_url` with `shards`, JSON logs to `stderr`;
    `env`: more `SCORELEDGER_*` settings (e.g. `LEASE_TTL_MS="1000"`)."""
    environ = {
        **os.environ,
        "SCORELEDGER_REDIS_URL": redis_url,
        "SCORELEDGER_SHARDS": str(shards),
        "SCORELEDGER_LOG_LEVEL": "INFO",
        "SCORELEDGER_LOG_FORMAT": "json",
        **{f"SCORELEDGER_{k}": v for k, v in env.items()},
    }
    environ.pop("REDIS_URL", None)
    environ.pop("PYTHONDONTWRITEBYTECODE", None)  # started many times: reuse cached bytecode
    return subprocess.Popen(
        [sys.executable, "-m", "services.cli.projector"],
        cwd=ROOT,
        env=environ,
        stdout=subprocess.DEVNULL,
        stderr=stderr,
    )


def log_events(path: Path) -> Counter[str]:
    """`event` names of the JSON log lines in `path` (other lines ignored), counted."""
    out: Counter[str] = Counter()
    for line in path.read_text(errors="replace").splitlines():
        try:
            out[str(json.loads(line).get("event"))] += 1
        except (ValueError, AttributeError):
            continue
    return out


async def holders(client: RedisClient, keys: Keys) -> dict[int, str]:
    """shard -> the owner id holding its lease now (shards without a lease left out)."""
    out = {}
    for shard in range(keys.shards):
        value = await client.get(lease_key(keys, shard))
        if isinstance(value, bytes):
            out[shard] = value.decode().rpartition(":")[0]
    return out


async def wait_caught_up(
    client: RedisClient, keys: Keys, logs: dict[str, list[Envelope]], timeout_s: float
) -> int:
    """Wait until every game is projected at its last seq; returns the games behind (0), or
    raises AssertionError naming how many are behind and by how many events."""
    expected = {g: len(e) for g, e in logs.items()}

    async def done() -> bool:
        return await projected_seqs(client, keys, list(logs)) == expected

    try:
        await wait_until(done, timeout_s, "every game projected at its last seq")
    except AssertionError:
        seqs = await projected_seqs(client, keys, list(logs))
        behind = {g: expected[g] - s for g, s in seqs.items() if s != expected[g]}
        raise AssertionError(
            f"{len(behind)} of {len(logs)} games behind, {sum(behind.values())} events "
            f"in all (e.g. {dict(list(behind.items())[:3])})"
        ) from None
    return 0


@dataclass(frozen=True)
class Invariant:
    """What `check_invariant` found."""

    games: int
    events: int
    wrong: int
    behind: int
    twice: int

    def __str__(self) -> str:
        return (
            f"games {self.games}, events {self.events}, standings unequal to score(export) "
            f"{self.wrong}, games behind {self.behind}, totals unequal to ledger sums {self.twice}"
        )


async def check_invariant(
    client: RedisClient, url: str, keys: Keys, logs: dict[str, list[Envelope]]
) -> Invariant:
    """For every game: the live standings equal `score` of its `export` (the CLI's functions
    on the stored log), its projection is at the log's last seq, and each player's projected
    total equals the sum of its score-unit ledger entries (nothing counted twice)."""
    settings = CommonSettings(redis_url=url, shards=keys.shards)
    wrong = behind = twice = 0
    seqs = await projected_seqs(client, keys, list(logs))
    with tempfile.TemporaryDirectory() as tmp:
        for game_id, events in logs.items():
            path = Path(tmp) / f"{game_id}.jsonl"
            path.write_text(await export_game(settings, game_id), encoding="utf-8")
            offline = json.loads(score_file(path).model_dump_json())
            raw: Any = await client.hget(keys.projection(game_id), "standings")
            live = json.loads(raw) if raw else None
            wrong += live != offline
            behind += seqs[game_id] != len(events)
            sums: Counter[str] = Counter()
            for entry in score_entries(fold(events)):
                sums[entry.player_id] += entry.amount
            totals = {p["player_id"]: p["total"] for p in (live or {}).get("players", [])}
            twice += any(totals.get(p, 0) != sums[p] for p in sums)
    events = sum(len(e) for e in logs.values())
    return Invariant(len(logs), events, wrong, behind, twice)
