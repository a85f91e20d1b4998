"""Integrations with a stream of their own, against a real redis-server (docs/decisions/0019-hostile-input-at-every-door.md (hostile
integrations)): `deploy/scripts/redis-acl.sh` renders one user `integration-<name>` per name in
`REDIS_ACL_INTEGRATIONS`, which may XADD to `sl:inbox:<name>` and nothing else, so its
`XADD ... MAXLEN 0` trims no other stream; ingest consumes, reclaims and trims those streams.
The script and `IngestSettings.inbox_integrations` accept the same names.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ResponseError

from services.adapters.redis.deadletters import RedisDeadLetters
from services.adapters.redis.exhausted import LAST_POSSIBLE_ID, ExhaustedStreams
from services.adapters.redis.inbox import RedisInboxQueue
from services.adapters.redis.retention import trim_inbox
from services.doors.ingest.inbox_entry import game_of_entry
from services.platform.settings import integration_names
from services.ports.deadletters import DeadLetter
from services.ports.inbox import Held
from services.usecases.inbox.reclaim import Reclaimer
from tests.deploy.test_redis_acl import (
    EXAMPLE,
    GAME,
    KEYS,
    ROLES,
    AclServer,
    acl_variable,
    assert_rotation_logs_in,
    integration_env,
    refused,
    render_acl,
)

TABLE, APP = KEYS.integration_inbox("table-7"), KEYS.integration_inbox("app-2")


async def test_an_integration_user_may_only_xadd_its_own_stream(
    role: Callable[[str], aioredis.Redis],
) -> None:
    table, admin = role("integration-table-7"), role("admin")
    assert await table.ping()
    assert await table.xadd(TABLE, {"data": EXAMPLE[0]})
    await refused(table.xadd(KEYS.inbox, {"data": EXAMPLE[0]}))  # not the shared stream
    await refused(table.xadd(APP, {"data": EXAMPLE[0]}))  # not another integration's
    await refused(table.xrange(TABLE))  # not even its own back
    await refused(table.xtrim(TABLE, maxlen=0))
    await refused(table.delete(TABLE))
    await refused(table.xadd(KEYS.game_stream(GAME), {"data": "forged"}, id="3-1"))
    await refused(table.get(KEYS.write_token(GAME)))
    await refused(table.xadd(KEYS.dead_letter, {"raw": "x"}))
    await refused(table.eval("return redis.call('XADD', KEYS[1], '*', 'a', 'b')", 1, TABLE))
    assert await admin.xlen(TABLE) == 1
    assert await admin.exists(KEYS.inbox, APP) == 0


async def test_an_integration_reads_its_own_dead_letters_and_no_other(
    role: Callable[[str], aioredis.Redis],
) -> None:
    """Ingest letters a refused entry of `sl:inbox:table-7` under its own user; the table's
    user reads the letter back (reason as HTTP's problem), but not the shared letters, another
    integration's, or its inbox stream; it cannot write or trim its letters."""
    table, ingest, admin = role("integration-table-7"), role("ingest"), role("admin")
    letters = RedisDeadLetters(ingest, KEYS)
    reason = {"kind": "invalid", "rule": "schema.field", "field": "seq", "status": 422}
    refusal = DeadLetter(b"{}", reason, "inbox", {"inbox_id": "1-0", "inbox": TABLE})
    assert await letters.put_once(refusal, f"inbox:{TABLE}:1-0", 3600) is not None
    other = DeadLetter(b"[]", reason, "inbox", {"inbox_id": "2-0", "inbox": APP})
    assert await letters.put_once(other, f"inbox:{APP}:2-0", 3600) is not None
    own = await table.xrange(KEYS.integration_dead_letters("table-7"))
    assert [json.loads(f[b"reason"])["rule"] for _, f in own] == ["schema.field"]
    assert own[0][1][b"inbox_id"] == b"1-0"
    assert await table.xlen(KEYS.integration_dead_letters("table-7")) == 1
    await refused(table.xrange(KEYS.dead_letter))  # the shared letters: not its own
    await refused(table.xrange(KEYS.integration_dead_letters("app-2")))
    await refused(table.xrange(TABLE))  # its inbox stays write-only
    await refused(table.xadd(KEYS.integration_dead_letters("table-7"), {"raw": "forged"}))
    await refused(table.xtrim(KEYS.integration_dead_letters("table-7"), maxlen=0))
    assert await admin.xlen(KEYS.dead_letter) == 2  # every letter is still in the shared stream


async def test_an_integrations_maxlen_0_trims_only_its_own_stream(
    role: Callable[[str], aioredis.Redis],
) -> None:
    table, app, shared = role("integration-table-7"), role("integration-app-2"), role("integration")
    admin = role("admin")
    await shared.xadd(KEYS.inbox, {"data": "shared-1"})
    await shared.xadd(KEYS.inbox, {"data": "shared-2"})
    await app.xadd(APP, {"data": "app-1"})
    await table.xadd(TABLE, {"data": "table-1"})
    await table.xadd(TABLE, {"data": "table-2"}, maxlen=0, approximate=False)  # the attack
    assert await admin.xlen(TABLE) == 0  # it emptied its own stream
    assert [f[b"data"] for _, f in await admin.xrange(KEYS.inbox)] == [b"shared-1", b"shared-2"]
    assert [f[b"data"] for _, f in await admin.xrange(APP)] == [b"app-1"]
    # what remains (docs/operating/security.md, "Known limit"): a holder of the shared user still empties sl:inbox
    await shared.xadd(KEYS.inbox, {"data": "shared-3"}, maxlen=0, approximate=False)
    assert await admin.xlen(KEYS.inbox) == 0
    assert await admin.xlen(APP) == 1


async def test_integration_users_rotate_like_the_roles(server: AclServer) -> None:
    await assert_rotation_logs_in(server, "integration-table-7", server.old_table)


async def test_ingest_consumes_reclaims_and_trims_an_integrations_stream(
    role: Callable[[str], aioredis.Redis],
) -> None:
    table, ingest = role("integration-table-7"), role("ingest")
    entry_id = await table.xadd(TABLE, {"data": EXAMPLE[0]})
    await ingest.xgroup_create(TABLE, "ingest", id="0", mkstream=True)
    await ingest.xreadgroup("ingest", "ingest-dead", {TABLE: ">"}, count=10)  # then it died
    game = json.loads(EXAMPLE[0])["game_id"]
    queue = RedisInboxQueue(ingest, TABLE, game_of_entry)
    assert await queue.pending_older(game, b"9999999999999-0", set()) == [
        Held(entry_id, "ingest-dead")
    ]
    settled: list[bytes] = []

    async def settle(ids: list[bytes], entries: list[dict[bytes, bytes]]) -> None:
        settled.extend(ids)
        await ingest.xack(TABLE, "ingest", *ids)

    reclaimer = Reclaimer(queue, "ingest-0", settle, set(), claim_idle_ms=0, count=10)
    assert await reclaimer.once() == 1  # XAUTOCLAIM from the dead consumer, then dropped it
    assert settled == [entry_id]
    names = [c["name"] for c in await ingest.xinfo_consumers(TABLE, "ingest")]
    assert b"ingest-dead" not in names
    now_ms = int(time.time() * 1000)
    assert await trim_inbox(ingest, TABLE, "ingest", 0, now_ms + 1) == 1  # the settled entry


async def test_ingest_renews_an_exhausted_integration_stream_and_may_delete_nothing_else(
    role: Callable[[str], aioredis.Redis],
) -> None:
    """The renewal (XINFO STREAM, XINFO GROUPS, DEL, XGROUP CREATE in one script) runs under
    ingest's user; its DEL is granted on the inbox keys only (a selector)."""
    table, ingest = role("integration-table-7"), role("ingest")
    await ingest.xgroup_create(TABLE, "ingest", id="0", mkstream=True)
    await table.xadd(TABLE, {"data": "x"}, id=LAST_POSSIBLE_ID)  # its own stream, exhausted
    streams = ExhaustedStreams(ingest)
    assert await streams.renew_if_exhausted(TABLE, "ingest") == -1  # not read yet
    read: Any = await ingest.xreadgroup("ingest", "ingest-0", {TABLE: ">"}, count=10)
    await ingest.xack(TABLE, "ingest", read[0][1][0][0])
    assert await streams.renew_if_exhausted(TABLE, "ingest") == 1
    assert await streams.renew_if_exhausted(TABLE, "ingest") == 0
    assert await table.xadd(TABLE, {"data": "y"})  # XADD * works again
    for key in (KEYS.game_stream("g1"), KEYS.feed(0), KEYS.dead_letter, KEYS.write_token("g1")):
        with pytest.raises(ResponseError, match="no permissions"):
            await ingest.delete(key)


def _render(tmp_path: Path, names: str, passwords: dict[str, str]) -> tuple[int, str, str]:
    """Render with every role's password, `names` as the list and `passwords` (name -> its
    passwords): (exit code, stderr, the file or "")."""
    roles = {r: secrets.token_urlsafe(24) for r in ROLES}
    out = tmp_path / f"{secrets.token_hex(4)}.acl"
    extra = {**integration_env(passwords), "REDIS_ACL_INTEGRATIONS": names}
    done = render_acl(out, roles, extra)
    return done.returncode, done.stderr, out.read_text() if out.exists() else ""


def test_the_script_writes_one_user_per_integration(tmp_path: Path) -> None:
    names = [f"t{i}" for i in range(64)]
    passwords = {n: secrets.token_urlsafe(24) for n in names}
    code, err, text = _render(
        tmp_path, " ".join(names[:32]) + ", " + ",".join(names[32:]), passwords
    )
    assert (code, err) == (0, "")
    users = [line for line in text.splitlines() if line.startswith("user integration-")]
    assert len(users) == 64
    assert users[5].split()[1] == "integration-t5"
    assert users[5].endswith(
        " -@all +ping +xadd ~sl:inbox:t5"
        " (%R~{sl:deadletter}:inbox:t5 +xrange +xrevrange +xread +xlen)"
    )
    assert users[5].split()[3] == "#" + hashlib.sha256(passwords["t5"].encode()).hexdigest()
    assert "${" not in text
    assert all(p not in text for p in passwords.values())
    code, _, text = _render(tmp_path, "", {})  # none listed: the shared user only
    assert code == 0
    assert [line.split()[1] for line in text.splitlines() if "integration" in line] == [
        "integration"
    ]


@pytest.mark.parametrize(
    ("names", "message"),
    [
        ("Table-7", "'Table-7' is not [a-z0-9][a-z0-9-]{0,31}"),
        ("-table", "'-table' is not"),
        ("table:7", "'table:7' is not"),
        ("tab*", "'tab*' is not"),
        ("tab\\c7", "'tab\\c7' is not [a-z0-9]"),  # dash's echo ended the message at `\c`
        ("a\\bc", "'a\\bc' is not"),  # and printed a backspace for `\b`
        ("x" * 33, "longer than 32 characters"),
        ("t1,t1", "lists 't1' twice"),
        (",".join(f"t{i}" for i in range(65)), "more than 64 integrations"),
    ],
)
def test_the_script_refuses_bad_integration_names(tmp_path: Path, names: str, message: str) -> None:
    passwords = {f"t{i}": secrets.token_urlsafe(24) for i in range(65)}
    code, err, text = _render(tmp_path, names, passwords)
    assert (code, text) == (2, "")
    assert message in err


def test_the_script_refuses_a_missing_or_short_integration_password(tmp_path: Path) -> None:
    code, err, _ = _render(tmp_path, "table-7", {})
    assert code == 2
    assert "REDIS_ACL_INTEGRATION_TABLE_7 is not set" in err
    code, err, _ = _render(tmp_path, "table-7", {"table-7": "short"})
    assert code == 2
    assert "a REDIS_ACL_INTEGRATION_TABLE_7 password is shorter than 24 characters" in err
    assert acl_variable("app-2-b") == "REDIS_ACL_INTEGRATION_APP_2_B"


@pytest.mark.parametrize(
    "name", ["t", "table-7", "0", "a" * 32, "7-", "a" * 33, "T", "-a", "a_b", "a.b", "ä", "a:b"]
)
def test_the_script_and_the_settings_accept_the_same_names(tmp_path: Path, name: str) -> None:
    code, _, _ = _render(tmp_path, name, {name: secrets.token_urlsafe(24)})
    try:
        integration_names(name)
        accepted = True
    except ValueError:
        accepted = False
    assert (code == 0) == accepted
    assert accepted == (name in {"t", "table-7", "0", "a" * 32, "7-"})


@pytest.mark.parametrize(
    "names",
    [
        "a b",
        "a,b",
        " a , b ",
        "a\tb",
        "a\nb",
        "a\rb",
        "a\vb",
        "a\fb",
        "a\x1fb",
        "a\xa0b",
        "a\u2003b",
    ],
)
def test_the_script_and_the_settings_split_a_list_alike(tmp_path: Path, names: str) -> None:
    # compose hands both the same INBOX_INTEGRATIONS: a list one of them splits and the other
    # refuses (a CRLF .env's "table-7\r") starts ingest but not Redis, or the other way round
    passwords = {n: secrets.token_urlsafe(24) for n in ("a", "b")}
    code, _, text = _render(tmp_path, names, passwords)
    try:
        parsed: tuple[str, ...] | None = integration_names(names)
    except ValueError:
        parsed = None
    users = [line.split()[1] for line in text.splitlines() if line.startswith("user integration-")]
    assert (code == 0) == (parsed is not None)
    if parsed is not None:
        assert users == [f"integration-{n}" for n in parsed] == ["integration-a", "integration-b"]
