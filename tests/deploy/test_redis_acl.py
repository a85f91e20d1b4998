"""The Redis ACL users against a real redis-server: each role works with only its rights.

The server runs the committed `deploy/redis.conf` with the ACL file that
`deploy/scripts/redis-acl.sh` renders from `deploy/users.acl.template`; the roles run the real
append and apply Lua scripts and the commands their services send. Source: docs/decisions/0019-hostile-input-at-every-door.md
("Test the ACL users against a real Redis: each role works with only its rights, and an
integration user cannot touch a token or a game stream").
"""

from __future__ import annotations

import os
import secrets
import subprocess
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
import redis.asyncio as aioredis
from redis.exceptions import AuthenticationError, ResponseError

from contracts.events import parse_event_json
from services.adapters.redis.append_lua import APPEND_LUA
from services.adapters.redis.credentials import _LOOKUP_LUA, RedisCredentials
from services.adapters.redis.deadletters import RedisDeadLetters
from services.adapters.redis.feed import feed_entries
from services.adapters.redis.keys import Keys, shard_of
from services.adapters.redis.launcher import RedisProcess
from services.adapters.redis.lease import ShardLease, ShardLeases, lease_key
from services.adapters.redis.project_lua import APPLY_LUA
from services.adapters.redis.projections import (
    _GET_LUA,
    _LAG_LUA,
    FENCED_APPLY_LUA,
    RedisProjections,
)
from services.adapters.redis.readonly import ReadOnlyScript
from services.adapters.redis.retention import FeedRetention, trim_dead_letters, trim_inbox
from services.bootstrap import Roles, assemble, build, redis_ports
from services.platform.settings import ServiceSettings
from services.ports.deadletters import DeadLetter
from services.ports.projections import START_ID
from services.usecases.authorize import digest
from services.usecases.check import CheckedAppend
from services.usecases.ownership import ShardOwnership
from services.usecases.project import Project
from services.usecases.readmodels.reads import ReadModels
from tests.redis_fixture import free_port

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
ROLES = ("integration", "ingest", "projector", "query", "admin", "archiver", "webhooks")
INTEGRATIONS = ("table-7", "app-2")  # each its own user `integration-<name>` and stream
KEYS = Keys(16)
GAME = "tr-acl-1"
SHARD = shard_of(GAME, KEYS.shards)
EXAMPLE = (DEPLOY.parent / "contracts" / "examples" / "penumbra-3p.jsonl").read_text().splitlines()


def integration_env(passwords: dict[str, str]) -> dict[str, str]:
    """The script's variables for integrations with a stream of their own: the list
    `REDIS_ACL_INTEGRATIONS` and `REDIS_ACL_INTEGRATION_<NAME>` per name (`passwords`: name ->
    its passwords, space-separated)."""
    env = {"REDIS_ACL_INTEGRATIONS": ",".join(passwords)}
    return env | {acl_variable(name): value for name, value in passwords.items()}


def acl_variable(name: str) -> str:
    """`table-7` -> `REDIS_ACL_INTEGRATION_TABLE_7` (the script's convention)."""
    return "REDIS_ACL_INTEGRATION_" + name.upper().replace("-", "_")


def render_acl(
    out: Path, passwords: dict[str, str], extra: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the deploy script with `REDIS_ACL_<ROLE>` set from `passwords`, and `extra`."""
    env = {"PATH": os.environ["PATH"], **(extra or {})}
    env |= {f"REDIS_ACL_{role.upper()}": value for role, value in passwords.items()}
    return subprocess.run(
        [
            "sh",
            str(DEPLOY / "scripts" / "redis-acl.sh"),
            str(DEPLOY / "users.acl.template"),
            str(out),
        ],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def acl_without(tmp_path: Path, user: str) -> tuple[str, dict[str, str]]:
    """The ACL file rendered (into `tmp_path`, which must succeed) with a password for every
    role but `user`: its text, and the passwords given."""
    passwords = {r: secrets.token_urlsafe(24) for r in ROLES if r != user}
    rendered = render_acl(tmp_path / "without.acl", passwords)
    assert rendered.returncode == 0, rendered.stderr
    return (tmp_path / "without.acl").read_text(), passwords


def acl_with(tmp_path: Path, user: str, passwords: dict[str, str]) -> str:
    """The ACL file's text rendered (which must succeed) once `user` has a password too."""
    rendered = render_acl(tmp_path / "with.acl", {**passwords, user: secrets.token_urlsafe(24)})
    assert rendered.returncode == 0, rendered.stderr
    return (tmp_path / "with.acl").read_text()


async def assert_rotation_logs_in(server: AclServer, user: str, old: str) -> None:
    """During a rotation `user` logs in with either password: `old` and the current one."""
    for password in (old, server.passwords[user]):
        client = server.client(user, password)
        assert await client.ping()
        await client.aclose()


class AclServer:
    """redis-server (the repository's launcher, `RedisProcess`) with the committed redis.conf
    and a rendered ACL file, on a free port."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self.port = free_port()
        users = [*ROLES, *(f"integration-{name}" for name in INTEGRATIONS)]
        self.passwords = {user: secrets.token_urlsafe(24) for user in users}
        self.old_ingest = secrets.token_urlsafe(24)  # a rotation in progress: two passwords
        self.old_table = secrets.token_urlsafe(24)  # and one of integration-table-7's
        self.redis: RedisProcess | None = None

    def start(self) -> AclServer:
        passwords = {r: self.passwords[r] for r in ROLES}
        passwords["ingest"] = f"{self.old_ingest} {self.passwords['ingest']}"
        own = {name: self.passwords[f"integration-{name}"] for name in INTEGRATIONS}
        own["table-7"] = f"{self.old_table} {own['table-7']}"
        rendered = render_acl(self.work / "users.acl", passwords, integration_env(own))
        assert rendered.returncode == 0, rendered.stderr
        # The committed redis.conf, but with its data dir here (`dir` is applied as it is read).
        conf = (DEPLOY / "redis.conf").read_text().replace("dir /data", f"dir {self.work}")
        (self.work / "redis.conf").write_text(conf)
        self.redis = RedisProcess(
            self.work,
            port=self.port,
            config=self.work / "redis.conf",
            extra=["--aclfile", str(self.work / "users.acl"), "--appendonly", "no"],
        ).start()
        return self

    def url(self, user: str, password: str) -> str:
        return f"redis://{user}:{password}@127.0.0.1:{self.port}/0"

    def client(self, role: str, password: str | None = None) -> aioredis.Redis:
        return aioredis.Redis(
            port=self.port, username=role, password=password or self.passwords[role]
        )

    def stop(self) -> None:
        if self.redis is not None:
            self.redis.stop()


async def refused(call: Awaitable[Any]) -> None:
    # NOPERM for a call; inside a script Redis says the user "can't run this command"
    with pytest.raises(ResponseError, match=r"no permissions|can't run this command"):
        await call


TOKEN = "acl-test-game-write-token-0123456789abc"


async def _append(client: aioredis.Redis, live: bool = False) -> Any:
    """The real append script for the example game's first two events, renamed to `GAME`; the
    creating append stores the write token's digest (`live`: and a live projection of seq 2)."""
    # "": no head check; 1: one player name kept (services/adapters/redis/append_lua.py)
    args: list[str | int] = [GAME, 1_764_525_600_000, digest(TOKEN), "", 1, "p1", "Ada"]
    for seq, line in enumerate(EXAMPLE[:2], start=1):
        args += [f"00000000-0000-0000-0000-00000000000{seq}", seq, "t", line]
    keys = [
        KEYS.game_stream(GAME),
        KEYS.feed(SHARD),
        KEYS.event_ids(GAME),
        KEYS.game_index(SHARD),
        KEYS.write_token(GAME),
        KEYS.names(GAME),
    ]
    if live:  # services/adapters/redis/live_lua.py
        keys += [KEYS.projection(GAME), KEYS.changes(SHARD)]
        args += [2, "in_progress", "penumbra", "{}", "{}", "2026-12-01T00:00:00Z", 1000]
    return await client.register_script(APPEND_LUA)(keys=keys, args=args)


async def _apply(client: aioredis.Redis, feed_id: str) -> Any:
    """The real apply script: one `apply` op for `GAME` up to seq 2."""
    keys = [KEYS.checkpoint(SHARD), KEYS.changes(SHARD), KEYS.held(SHARD), KEYS.projection(GAME)]
    args: list[Any] = [feed_id, 1000, "2026-12-01T00:00:00Z", 1,
            "apply", GAME, 0, 2, "in_progress", "penumbra", "{}", ""]  # fmt: skip
    return await client.register_script(APPLY_LUA)(keys=keys, args=args)


async def _last_feed_id(client: aioredis.Redis) -> str:
    """The id of the shard feed's last entry, read with XREAD as the projector does."""
    feed: Any = await client.xread({KEYS.feed(SHARD): "0-0"}, count=10)
    return str(feed[0][1][-1][0].decode())


def test_no_connection_without_a_user(server: AclServer) -> None:
    client = redis.Redis(port=server.port)
    with pytest.raises((AuthenticationError, ResponseError), match=r"(?i)auth"):
        client.get("sl:inbox")
    client.close()


async def test_the_health_user_can_only_ping(server: AclServer) -> None:
    client = aioredis.Redis(port=server.port, username="health", password="any")
    assert await client.ping()
    await refused(client.get(KEYS.projection(GAME)))
    await client.aclose()


async def test_an_integration_may_only_xadd_the_inbox(
    role: Callable[[str], aioredis.Redis],
) -> None:
    integration, ingest = role("integration"), role("ingest")
    assert await integration.xadd(KEYS.inbox, {"data": EXAMPLE[0]})
    await _append(ingest)
    await refused(integration.xrange(KEYS.inbox))  # cannot read what others sent
    await refused(integration.xadd(KEYS.game_stream(GAME), {"data": "forged"}, id="3-1"))
    await refused(integration.get(KEYS.write_token(GAME)))
    await refused(integration.set(KEYS.write_token(GAME), "0" * 64))
    await refused(integration.delete(KEYS.write_token(GAME)))
    await refused(integration.xadd(KEYS.dead_letter, {"raw": "x"}))
    await refused(integration.xadd(KEYS.feed(SHARD), {"data": "x"}))
    await refused(_append(integration))
    await refused(integration.eval("return redis.call('GET', KEYS[1])", 1, KEYS.write_token(GAME)))


async def test_ingest_appends_issues_tokens_consumes_the_inbox_and_dead_letters(
    role: Callable[[str], aioredis.Redis],
) -> None:
    ingest, integration = role("ingest"), role("integration")
    reply = await _append(ingest, live=True)
    assert reply[0] == 2  # version 2: both events stored
    # and the game's live projection with its change notice (SCORELEDGER_LIVE_PROJECTION)
    assert await ingest.hget(KEYS.projection(GAME), "live") == b"1"
    assert await ingest.hget(KEYS.projection(GAME), "seq") == b"2"
    assert await ingest.xlen(KEYS.changes(SHARD)) == 1
    assert await ingest.xlen(KEYS.game_stream(GAME)) == 2
    assert await ingest.hget(KEYS.names(GAME), "p1") == b"Ada"  # kept by the append script
    stored: Any = await ingest.xrange(KEYS.game_stream(GAME), "1-1", "2-1")
    assert len(stored) == 2
    found = await RedisCredentials(ingest, KEYS).lookup(GAME)  # the lookup script
    assert (found.digest, found.version) == (digest(TOKEN), 2)
    await integration.xadd(KEYS.inbox, {"data": EXAMPLE[0]})
    await ingest.xgroup_create(KEYS.inbox, "ingest", id="0", mkstream=True)
    entries: Any = await ingest.xreadgroup("ingest", "ingest-0", {KEYS.inbox: ">"}, count=10)
    entry_id = entries[0][1][0][0]
    assert await ingest.xpending(KEYS.inbox, "ingest")
    await ingest.xautoclaim(KEYS.inbox, "ingest", "ingest-0", min_idle_time=0)
    await ingest.xclaim(KEYS.inbox, "ingest", "ingest-0", 0, [entry_id], justid=True)
    assert await ingest.xinfo_consumers(KEYS.inbox, "ingest")
    assert await ingest.xack(KEYS.inbox, "ingest", entry_id) == 1
    big = await ingest.xadd(KEYS.inbox, {"data": "x" * 100})  # an oversized entry, lettered:
    assert await ingest.xdel(KEYS.inbox, big) == 1  # deleted at once
    assert await ingest.xgroup_delconsumer(KEYS.inbox, "ingest", "ingest-0") == 0
    assert await ingest.xadd(KEYS.dead_letter, {"raw": "x", "reason": "{}", "source": "inbox"})
    once = DeadLetter(b"x", {"kind": "invalid"}, "inbox", {"inbox_id": entry_id.decode()})
    letters = RedisDeadLetters(ingest, KEYS)
    assert await letters.put_once(once, f"inbox:{entry_id.decode()}", 60) is not None
    assert await letters.put_once(once, f"inbox:{entry_id.decode()}", 60) is None
    await ingest.xtrim(KEYS.inbox, maxlen=1000, approximate=False)
    now_ms = int(time.time() * 1000)  # retention runs under ingest's user
    assert await trim_inbox(ingest, KEYS.inbox, "ingest", 0, now_ms + 1) == 1  # the acked one
    assert await trim_dead_letters(ingest, KEYS.dead_letter, 0, now_ms + 1) == 2
    # a letter a forget (the operator's admin user) scrubbed is trimmed by ingest's retention
    # by its first id, through the index `{sl:deadletter}:scrubbed` (docs/forget.md)
    named = DeadLetter(b'{"game_id":"g","name":"Ann"}', {"kind": "x"}, "inbox", {})
    await letters.put(named)
    admin = RedisDeadLetters(role("admin"), KEYS)
    assert await admin.scrub("g", [('"Ann"', '"player-1"')]) == 1
    assert await letters.trim(0, int(time.time() * 1000) + 1) == 1
    assert await ingest.xlen(KEYS.dead_letter) == 0
    # not ingest's: checkpoints, held games, admin commands (projections and change notices
    # are, for the live projection its append stores)
    await refused(ingest.set(KEYS.checkpoint(SHARD), "9-9"))
    await refused(ingest.hset(KEYS.held(SHARD), GAME, "{}"))
    await refused(ingest.flushall())
    await refused(ingest.config_get("*"))


async def test_ingest_works_with_either_password_during_a_rotation(server: AclServer) -> None:
    await assert_rotation_logs_in(server, "ingest", server.old_ingest)


async def test_the_projector_reads_feeds_and_games_and_writes_projections(
    role: Callable[[str], aioredis.Redis],
) -> None:
    ingest, projector = role("ingest"), role("projector")
    await _append(ingest)
    last_id = await _last_feed_id(projector)
    log: Any = await projector.xrange(KEYS.game_stream(GAME), "1-1", "2-1")
    assert len(log) == 2
    assert await _apply(projector, last_id) == []  # no op skipped
    assert await projector.hget(KEYS.projection(GAME), "seq") == b"2"
    assert await projector.get(KEYS.checkpoint(SHARD)) == last_id.encode()
    assert await projector.xlen(KEYS.changes(SHARD)) == 1
    assert await projector.xadd(KEYS.dead_letter, {"raw": "x", "source": "projector"})
    # feed retention: the trim script (XTRIM below the checkpoint) runs as the projector
    reseeds: list[tuple[int, str]] = []

    async def reseed(shard: int, point: str) -> None:
        reseeds.append((shard, point))

    retention = FeedRetention(projector, KEYS, 0, 0, reseed)  # type: ignore[arg-type]
    assert await retention.advanced(SHARD) == 2
    assert await projector.xlen(KEYS.feed(SHARD)) == 0
    assert await retention.resume(SHARD, START_ID) == last_id  # a rebuild after the trim
    assert reseeds == [(SHARD, last_id)]
    assert await projector.hlen(KEYS.held(SHARD)) == 0  # /readyz reads the held games
    # read-only on the log, nothing of tokens or the inbox
    await refused(projector.xadd(KEYS.game_stream(GAME), {"data": "x"}, id="3-1"))
    await refused(projector.xadd(KEYS.feed(SHARD), {"data": "x"}))
    await refused(_append(projector))
    await refused(projector.get(KEYS.write_token(GAME)))
    await refused(projector.xadd(KEYS.inbox, {"data": "x"}))
    await refused(projector.rpush(KEYS.ledger(GAME), "x"))  # no ledger list is written any more


async def test_query_reads_and_writes_nothing(role: Callable[[str], aioredis.Redis]) -> None:
    ingest, projector, query = role("ingest"), role("projector"), role("query")
    await _append(ingest)
    await _apply(projector, await _last_feed_id(projector))
    assert (await query.hgetall(KEYS.projection(GAME)))[b"seq"] == b"2"
    assert await query.get(KEYS.checkpoint(SHARD))
    assert await query.xlen(KEYS.game_stream(GAME)) == 2
    assert await query.zrange(KEYS.game_index(SHARD), 0, -1) == [GAME.encode()]
    assert await query.xrevrange(KEYS.changes(SHARD), count=1)
    assert await query.xread({KEYS.changes(SHARD): "0-0"}, count=1)
    # the query service's own read scripts, as its reader runs them (EVALSHA), and read-only
    feed_keys = [KEYS.feed(SHARD), KEYS.checkpoint(SHARD)]
    assert await query.register_script(_LAG_LUA)(keys=feed_keys, args=[100]) == 0
    read = query.register_script(_GET_LUA)
    fields, ckpt = await read(keys=[KEYS.projection(GAME), KEYS.checkpoint(SHARD)])
    assert dict(zip(fields[::2], fields[1::2], strict=True))[b"standings"] == b"{}"
    assert ckpt is not None
    await refused(
        query.register_script(_LOOKUP_LUA)(keys=[KEYS.write_token(GAME), KEYS.game_stream(GAME)])
    )
    lag = await query.script_load(_LAG_LUA)
    assert await query.evalsha_ro(lag, 2, *feed_keys, 100) == 0
    await refused(query.get(KEYS.write_token(GAME)))
    await refused(query.hset(KEYS.projection(GAME), "seq", 9))
    await refused(query.xadd(KEYS.game_stream(GAME), {"data": "x"}, id="3-1"))
    await refused(query.xadd(KEYS.inbox, {"data": "x"}))
    await refused(query.xrange(KEYS.dead_letter))
    await refused(query.lrange(KEYS.ledger(GAME), 0, -1))
    await refused(_append(query))
    for write in ("DEL", "UNLINK", "PERSIST"):  # a script may only call what the user may
        script = f"return redis.call('{write}', KEYS[1])"
        await refused(query.eval(script, 1, KEYS.projection(GAME)))
    await refused(query.eval("return redis.call('SET', KEYS[1], 'x')", 1, KEYS.checkpoint(SHARD)))


@pytest.mark.parametrize("user", ["projector", "query"])
async def test_a_read_only_script_runs_after_a_script_flush_under_its_user(
    role: Callable[[str], aioredis.Redis], user: str
) -> None:
    """Finding: a `ReadOnlyScript` answered NOSCRIPT (a restarted Redis, `SCRIPT FLUSH`) is sent
    whole with `EVAL_RO` (services/adapters/redis/scripts.py), which the projector's user was
    not granted: its `/readyz` lag check, called outside a pipeline (a cluster's fan-out, or a
    single node's fallback after a flush raced the pipeline's load), answered NOPERM until
    something else loaded the script."""
    await _append(role("ingest"))
    client = role(user)
    feed_keys = [KEYS.feed(SHARD), KEYS.checkpoint(SHARD)]
    await role("admin").script_flush()
    assert await ReadOnlyScript(client, _LAG_LUA)(keys=feed_keys, args=[100]) == 2


def test_every_user_that_runs_scripts_by_sha_may_send_them_whole() -> None:
    """`FlushSafeScript` sends a script whole on NOSCRIPT: `EVAL` after `EVALSHA`, `EVAL_RO`
    after `EVALSHA_RO`; a user granted the first of a pair needs the second."""
    users = [
        line.split()
        for line in (DEPLOY / "users.acl.template").read_text().splitlines()
        if line.startswith("user ")
    ]
    assert users
    for words in users:
        granted = set(words)
        for by_sha, whole in (("+evalsha", "+eval"), ("+evalsha_ro", "+eval_ro")):
            if by_sha in granted:
                assert whole in granted, f"user {words[1]}: {by_sha} without {whole}"


async def test_each_services_own_code_runs_under_its_user(
    role: Callable[[str], aioredis.Redis],
) -> None:
    # The example Penumbra game through the real adapters and use cases: ingest's lookup and
    # checked append, the projector's batch, the query read models' standings, games and lag.
    events = [parse_event_json(line) for line in EXAMPLE]
    game_id, shard = events[0].game_id, shard_of(events[0].game_id, KEYS.shards)
    ingest = redis_ports(role("ingest"), KEYS)
    assert (await ingest.credentials.lookup(game_id)).version == 0
    checked = CheckedAppend(ingest.named_log())  # names kept apart (sl:names)
    for start in range(0, len(events), 30):
        await checked.append(game_id, events[start : start + 30], digest(TOKEN))
    projector_client = role("projector")
    projector = redis_ports(projector_client, KEYS)
    feed: Any = await projector_client.xread({KEYS.feed(shard): "0-0"}, count=1000)
    project = Project(
        projector.named_log(), projector.projections, projector.letters, names=projector.names
    )
    applied = await project.apply(shard, *feed_entries(feed[0][1], shard, KEYS.shards))
    assert applied.events == len(events)  # the projector's writes were allowed
    query = redis_ports(role("query"), KEYS)
    reads = ReadModels(query.named_log(), query.projections)
    assert b'"seq":' in await reads.standings_body(game_id)
    assert (await reads.events(game_id, 1))[0].payload == events[0].payload  # names put back
    assert [g.game_id for g in await reads.games()] == [game_id]
    assert await reads.lag(100) == 0


async def test_the_projector_holds_shard_leases_and_writes_fenced_under_its_user(
    role: Callable[[str], aioredis.Redis],
) -> None:
    # Several projectors share the shards (docs/decisions/0011-faults-are-answered-not-crashed.md): membership, leases with fencing tokens
    # and the fenced apply script, all under the projector's user; nobody else's keys.
    await _append(role("ingest"))
    client = role("projector")
    ports = redis_ports(client, KEYS)
    projections = ports.projections
    assert isinstance(projections, RedisProjections)
    await client.script_load(FENCED_APPLY_LUA)
    ownership = ShardOwnership(ShardLeases(client, KEYS, "acl-p1", 5000), _held, _dropped)
    await ownership.tick()
    assert sorted(ownership.owned) == list(range(KEYS.shards))
    projections.hold_lease(ownership.owned[SHARD])
    feed: Any = await client.xread({KEYS.feed(SHARD): "0-0"}, count=10)
    project = Project(ports.log, projections, ports.letters)
    assert (await project.apply(SHARD, *feed_entries(feed[0][1], SHARD, KEYS.shards))).events == 2
    await ownership.tick()  # renewals
    await ownership.stop()  # releases, leaves the members
    assert await client.get(lease_key(KEYS, SHARD)) is None
    await refused(client.get(KEYS.write_token(GAME)))


async def _held(lease: ShardLease) -> None:
    return None


async def _dropped(shard: int) -> None:
    return None


def test_the_acl_script_refuses_a_missing_or_short_password(tmp_path: Path) -> None:
    good = {r: secrets.token_urlsafe(24) for r in ROLES}
    missing = render_acl(tmp_path / "a.acl", {r: p for r, p in good.items() if r != "query"})
    assert missing.returncode == 2
    assert "REDIS_ACL_QUERY is not set" in missing.stderr
    short = render_acl(tmp_path / "b.acl", {**good, "ingest": "short"})
    assert short.returncode == 2
    assert "shorter than 24" in short.stderr
    assert not (tmp_path / "b.acl").exists()
    rendered = render_acl(tmp_path / "c.acl", good)
    text = (tmp_path / "c.acl").read_text()
    assert rendered.returncode == 0
    assert all(p not in text for p in good.values())  # digests only
    assert "${" not in text


@pytest.mark.parametrize(
    "roles",
    [
        pytest.param(Roles(ingest=False, inbox=False, query=False), id="projector"),
        pytest.param(Roles(ingest=False, inbox=False, projector=False), id="query"),
        pytest.param(Roles(projector=False, query=False), id="ingest"),
    ],
)
async def test_each_roles_readyz_answers_200_under_its_user(
    server: AclServer, role: Callable[[str], aioredis.Redis], roles: Roles
) -> None:
    """Finding: a projector-only process under the shipped ACL answered `/readyz` 503 ("no
    permissions to access one of the keys"): its lag check ran a script with EVALSHA, which
    declares its keys writable, on the feeds the projector may only read. Each role's
    readiness touches only keys its user may touch, the way it may."""
    await _append(role("ingest"))
    user = "projector" if roles.projector else ("query" if roles.query else "ingest")
    settings = ServiceSettings(
        redis_url=f"redis://127.0.0.1:{server.port}/0",
        redis_username=user,
        redis_password=server.passwords[user],
        shards=KEYS.shards,
    )
    service = build(settings)
    app = assemble(service, roles).app  # no lifespan: the probe alone
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        ready = await client.get("/readyz")
        metrics = await client.get("/metrics")
    await service.client.aclose()
    assert ready.status_code == 200, ready.text
    assert metrics.status_code == 200, metrics.text[:300]


def test_the_shared_integration_user_is_left_out_unless_its_password_is_set(
    tmp_path: Path,
) -> None:
    """Redis ACLs cannot restrict XADD's arguments (commands, subcommands, keys and channels
    only), so a holder of the shared `integration` user could `XADD sl:inbox
    18446744073709551615-18446744073709551615 ...` and make every later `XADD sl:inbox *` of
    every holder fail. The default render has no such user."""
    default, others = acl_without(tmp_path, "integration")
    users = [line.split()[1] for line in default.splitlines()]
    assert "integration" not in users
    assert {"ingest", "projector", "query", "admin"} <= set(users)
    assert "user integration on #" in acl_with(tmp_path, "integration", others)


async def test_tournaments_are_written_by_ingest_and_read_by_query(
    role: Callable[[str], aioredis.Redis],
) -> None:
    # The tournament log adapter under each user: ingest appends (token digest, event ids,
    # stream), query folds the stream but reads no token or id hash, writes nothing.
    # Names are kept apart (`NamedSideLog`): ingest keeps them, query reads them back.
    from services.adapters.redis.names import RedisSideNames
    from services.ports.errors import VersionConflict
    from services.tournaments.adapters.redis import RedisTournamentLog
    from services.usecases.side_names import NamedSideLog
    from tests.domain.tournament.stream import Stream

    def named(client: aioredis.Redis) -> NamedSideLog[Any]:
        return NamedSideLog(RedisTournamentLog(client, KEYS), RedisSideNames(client, KEYS))

    tid = "acl-cup"
    events = Stream(tid).create().register("a", "b", "c").events
    ingest = named(role("ingest"))
    assert (await ingest.append(tid, events, digest(TOKEN))).version == 4
    assert len(await ingest.read(tid)) == 4
    query_client = role("query")
    query = named(query_client)
    assert await query.read(tid) == await ingest.read(tid)
    assert [e.seq for e in await query.read(tid)] == [1, 2, 3, 4]
    assert await query.names.names(tid) == await ingest.names.names(tid) != {}
    assert await query.names.count(tid) == 3  # the live screens' names stamp (HLEN)
    await refused(query.names.keep(tid, {"z": "Zed"}))
    # a refused append takes back the names it kept (HDEL, granted on these keys only)
    stale = Stream(tid).create().register("a", "b", "c", "d").events[4]
    with pytest.raises(VersionConflict):
        await ingest.append(tid, [stale.model_copy(update={"seq": 9})], digest(TOKEN))
    assert len(await ingest.names.names(tid)) == 3
    await refused(role("ingest").hdel(KEYS.tournament_ids(tid), str(events[0].event_id)))
    assert await query.version(tid) == 4
    more = Stream(tid).create().register("a", "b", "c", "d").events[4:]
    await refused(query.append(tid, more, digest(TOKEN)))
    await refused(query_client.get(KEYS.tournament_token(tid)))
    await refused(query_client.hget(KEYS.tournament_ids(tid), str(events[0].event_id)))
    for other in ("projector", "integration"):
        await refused(role(other).xrange(KEYS.tournament_stream(tid)))
        await refused(role(other).get(KEYS.tournament_token(tid)))
    # the auto-approval schedule: ingest (its timer) schedules, claims and settles; no other
    from services.tournaments.adapters.redis_approvals import RedisApprovalSchedule
    from services.tournaments.ports.approvals import DueEntry

    due = RedisApprovalSchedule(role("ingest"), KEYS)
    await due.schedule(DueEntry(tid, 1000))
    assert await due.claim(1000, 5, 100) == [DueEntry(tid, 1000)]
    await due.done([DueEntry(tid, 1000)])
    for other in ("projector", "query", "integration"):
        await refused(RedisApprovalSchedule(role(other), KEYS).schedule(DueEntry(tid, 1)))


async def test_leagues_live_under_the_tournament_keys_and_their_acl(
    role: Callable[[str], aioredis.Redis],
) -> None:
    # A league's stream is kept under the tournament keys (`@league/<id>`): ingest appends,
    # query reads the stream, never the digest; the other users neither.
    from contracts.league import LeagueCreated
    from services.leagues.adapters.redis import LEAGUE, RedisLeagueLog
    from tests.domain.league.test_league import league_event

    created = league_event(1, LeagueCreated(title="Club", game="penumbra"), "acl-club")
    ingest = RedisLeagueLog(role("ingest"), KEYS)
    assert (await ingest.append("acl-club", [created], digest(TOKEN))).version == 1
    query_client = role("query")
    assert [e.seq for e in await RedisLeagueLog(query_client, KEYS).read("acl-club")] == [1]
    await refused(query_client.get(KEYS.tournament_token(LEAGUE + "acl-club")))
    for other in ("projector", "integration"):
        await refused(role(other).xrange(KEYS.tournament_stream(LEAGUE + "acl-club")))
    # A league addition hides the players forgotten in its source (SideForget.league_added,
    # run by ingest): the names scripts under ingest's user.
    from services.adapters.redis.names import RedisSideNames

    names = RedisSideNames(role("ingest"), KEYS, LEAGUE)
    assert await names.keep("acl-club", {"e1/a": "Ann"}) == ["e1/a"]
    assert await names.forget("acl-club", "a", "player-1") is True
    assert await names.names("acl-club") == {"e1/a": "player-1", "!a": "player-1"}
    await refused(RedisSideNames(role("query"), KEYS, LEAGUE).forget("acl-club", "a", "x"))
    # The index of a tournament's leagues: ingest adds at a league's addition, query reads it,
    # neither the projector nor an integration touches it.
    from services.leagues.adapters.redis_index import RedisLeagueIndex

    await RedisLeagueIndex(role("ingest"), KEYS).add("acl-cup", "acl-club")
    assert await RedisLeagueIndex(query_client, KEYS).leagues("acl-cup") == ["acl-club"]
    await refused(RedisLeagueIndex(query_client, KEYS).add("acl-cup", "other"))
    for other in ("projector", "integration"):
        await refused(role(other).smembers(KEYS.tournament_leagues("acl-cup")))
    # The backfill at an ingest start lists the leagues (ZREVRANGE) under ingest's user.
    from services.leagues.usecases.index_backfill import backfill_league_index

    assert "acl-club" in await ingest.streams(10)
    assert await backfill_league_index(ingest, RedisLeagueIndex(role("ingest"), KEYS)) == 0
