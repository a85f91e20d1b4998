"""`Forget` on the in-memory ports, through the whole service (ingest, projector, query; every
read route over HTTP): a forgotten player's name is in no answer and no stored byte, before
and after archiving, while every score and rank stays the example's."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from contracts.names import FORGOTTEN
from services.adapters.memory.store import MemoryBackend
from services.adapters.redis.keys import Keys
from services.archive.adapters.memory import MemoryArchive
from services.bootstrap import Assembled, Roles, Service, assemble, memory_ports, use_cases
from services.platform.settings import ServiceSettings
from services.ports.projections import START_ID, feed_id_key
from services.usecases.names import UnknownGame, UnknownPlayer
from tests.archive.reads import read_routes
from tests.names.helpers import (
    EXPECTED,
    GAME,
    NAME,
    PLAYER,
    holds_name,
    lines,
    ranks_and_totals,
)
from tests.pipeline.helpers import wait_until

TOKEN = "forget-test-token-0123456789abcdefghijklmnop"
SHARDS = 4


class _NoClient:
    """The Redis client a memory service never uses (the app closes it at the end)."""

    async def ping(self) -> bool:
        return True

    async def aclose(self) -> None:
        return None


@dataclass
class App:
    assembled: Assembled
    http: httpx.AsyncClient
    backend: MemoryBackend
    archive: MemoryArchive

    @property
    def service(self) -> Service:
        return self.assembled.service

    async def forget(self, player: str = PLAYER, game: str = GAME) -> Any:
        """Forget `player` of `game`, then wait until the projector has applied what the
        forget fed it (its refold writes the projection again: a later read must not see a
        refold still to come)."""
        forget = self.service.cases.forget
        assert forget is not None
        done = await forget.forget(game, player)
        await wait_until(self._projected, 20, "the projector past every feed entry")
        return done

    async def _projected(self) -> bool:
        b = self.backend
        return all(
            feed_id_key(b.checkpoints.get(shard, START_ID)) >= feed_id_key(feed[-1].feed_id)
            for shard, feed in b.feeds.items()
            if feed
        )

    async def seal(self) -> None:
        seal = self.service.cases.seal
        assert seal is not None
        result = await seal.game(GAME, datetime(2100, 1, 1, tzinfo=UTC))
        assert result == "sealed"

    async def standings(self) -> dict[str, Any]:
        answer = await self.http.get(f"/games/{GAME}/standings")
        assert answer.status_code == 200, answer.text
        return dict(answer.json())

    def stored(self) -> list[bytes]:
        """Every byte the memory tiers hold of the game (hot and archived)."""
        b = self.backend
        out: list[bytes] = list(b.logs.get(GAME, []))
        out += [e.data for feed in b.feeds.values() for e in feed]
        out += [json.dumps(b.projections.get(GAME, {}), ensure_ascii=False).encode()]
        out += [json.dumps(b.names.get(GAME, {}), ensure_ascii=False).encode()]
        out += [letter.letter.raw for letter in b.letters]
        game = self.archive.games.get(GAME)
        if game is not None:
            out += list(game.events)
            out += [json.dumps(game.names, ensure_ascii=False).encode()]
            if game.projection is not None:
                out += [game.projection.standings_json.encode(), game.projection.view_json]
        return out


@pytest.fixture
async def app() -> AsyncIterator[App]:
    """The memory service (archive: a `MemoryArchive`), the example game published through
    ingest with Oren named `NAME`, projected final."""
    archive = MemoryArchive()
    ports = memory_ports(SHARDS, archive)
    settings = ServiceSettings(shards=SHARDS, archive_after_s=0)
    service = Service(settings, _NoClient(), Keys(SHARDS), ports, use_cases(ports, settings))  # type: ignore[arg-type]
    assembled = assemble(service, Roles(inbox=False))
    transport = httpx.ASGITransport(app=assembled.app)
    http = httpx.AsyncClient(transport=transport, base_url="http://sl", timeout=60)
    backend = ports.log.b  # type: ignore[attr-defined]
    built = App(assembled, http, backend, archive)
    async with assembled.app.router.lifespan_context(assembled.app), http:
        body = b"[" + b",".join(lines()) + b"]"
        headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
        posted = await http.post(f"/games/{GAME}/events", content=body, headers=headers)
        assert posted.status_code == 201, posted.text

        async def final() -> bool:
            got = await http.get(f"/games/{GAME}/standings")
            return got.status_code == 200 and got.json()["seq"] == len(lines())

        await wait_until(final, 60, "the game projected")
        yield built


def _leaks(routes: dict[str, tuple[int, bytes]]) -> list[str]:
    return [path for path, (_, body) in routes.items() if holds_name(body)]


async def test_before_forgetting_the_name_is_read_everywhere_but_not_stored_in_the_log(
    app: App,
) -> None:
    routes = await read_routes(app.http, GAME)
    assert _leaks(routes)  # the check can fail: the name shows before a forget
    first = app.backend.logs[GAME][0]
    assert not holds_name(first)  # the stored start event holds the id in place of the name
    assert app.backend.names[GAME][PLAYER] == NAME
    exported = (await app.http.get(f"/games/{GAME}/export/events.jsonl")).content.splitlines()
    posted = json.loads(lines()[0])
    players = json.loads(exported[0])["payload"]["players"]
    assert players == posted["payload"]["players"]  # the names put back on read


async def test_a_forgotten_name_is_in_no_answer_and_no_stored_byte_and_scores_stay(
    app: App,
) -> None:
    before = await app.standings()
    done = await app.forget()
    assert (done.pseudonym, done.tiers, done.already) == ("player-2", ("hot",), False)
    routes = await read_routes(app.http, GAME)
    assert _leaks(routes) == []
    assert [p for p, (status, _) in routes.items() if status >= 500] == []
    after = await app.standings()
    assert ranks_and_totals(after) == ranks_and_totals(before) == EXPECTED
    names = {p["player_id"]: p["name"] for p in after["players"]}
    assert names == {"mira": "Mira", "oren": "player-2", "tess": "Tess"}
    assert [d for d in app.stored() if holds_name(d)] == []
    # sealed after the forget: the archive holds the name nowhere either
    await app.seal()
    assert GAME not in app.backend.logs
    assert app.archive.games[GAME].names[PLAYER] == FORGOTTEN
    assert [d for d in app.stored() if holds_name(d)] == []
    archived = await read_routes(app.http, GAME)
    assert _leaks(archived) == []
    assert ranks_and_totals(await app.standings()) == EXPECTED


async def test_forgetting_an_archived_game_changes_the_archived_copy(app: App) -> None:
    before = await read_routes(app.http, GAME)
    await app.seal()
    assert await read_routes(app.http, GAME) == before  # names read back from the archive
    assert app.archive.games[GAME].names[PLAYER] == NAME
    done = await app.forget()
    assert (done.tiers, done.already) == (("archive",), False)
    routes = await read_routes(app.http, GAME)
    assert _leaks(routes) == []
    assert [d for d in app.stored() if holds_name(d)] == []
    assert ranks_and_totals(await app.standings()) == EXPECTED
    names = {p["player_id"]: p["name"] for p in (await app.standings())["players"]}
    assert names == {"mira": "Mira", "oren": "player-2", "tess": "Tess"}
    # the answers that showed the name changed; the games list never showed it
    changed = [path for path, answer in routes.items() if answer != before[path]]
    assert set(changed) == set(_leaks(before))


_CHECKPOINT = re.compile(rb'"checkpoint": ?"\d+-\d+"')


def _past_checkpoint(routes: dict[str, tuple[int, bytes]]) -> dict[str, tuple[int, bytes]]:
    """`routes` with the feed position a projection was written at blanked: a forget run
    again feeds the game again (a retried forget completes one stopped half-way), so the
    projector writes the same projection at a later checkpoint."""
    return {path: (code, _CHECKPOINT.sub(b"", body)) for path, (code, body) in routes.items()}


async def test_forget_is_idempotent(app: App) -> None:
    await app.forget()
    once = await read_routes(app.http, GAME)
    again = await app.forget()
    assert (again.pseudonym, again.already) == ("player-2", True)
    twice = await read_routes(app.http, GAME)
    assert _past_checkpoint(twice) == _past_checkpoint(once)
    assert _CHECKPOINT.search(once[f"/games/{GAME}/standings"][1])  # the blanking can fail


async def test_an_unknown_game_or_player_is_a_clear_error(app: App) -> None:
    with pytest.raises(UnknownGame, match="no-such-game"):
        await app.forget(game="no-such-game")
    with pytest.raises(UnknownPlayer, match=r"seats no player 'zed' \(players: mira, oren, tess\)"):
        await app.forget(player="zed")


async def test_a_retried_creation_is_a_duplicate_and_brings_no_name_back(app: App) -> None:
    await app.forget()
    body = lines()[0]
    headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
    again = await app.http.post(f"/games/{GAME}/events", content=body, headers=headers)
    assert again.status_code in (200, 201), again.text
    assert again.json()["appended"][0]["duplicate"] is True
    assert app.backend.names[GAME][PLAYER] == FORGOTTEN
    assert _leaks(await read_routes(app.http, GAME)) == []


async def test_a_log_written_with_names_inline_reads_the_pseudonym_once_forgotten(
    app: App,
) -> None:
    from contracts.events import parse_event_json

    game = "inline-1"
    events = [parse_event_json(line.replace(GAME.encode(), game.encode())) for line in lines()[:5]]
    await app.service.ports.log.append(game, events)  # the adapter itself: names stay inline
    assert holds_name(app.backend.logs[game][0])
    assert holds_name((await app.http.get(f"/games/{game}/export/events.jsonl")).content)
    before = list(app.backend.logs[game])
    done = await app.forget(game=game)
    assert done.already is False
    exported = (await app.http.get(f"/games/{game}/export/events.jsonl")).content
    assert not holds_name(exported)
    assert b'"player_id":"oren","name":"player-2"' in exported
    # The start event is stored again in today's form (ids for names, the names kept apart),
    # the other players still read by name; every later event is the very bytes written.
    stored = app.backend.logs[game]
    assert not holds_name(stored[0])
    assert b'"player_id":"mira","name":"mira"' in stored[0]
    assert b'"player_id":"mira","name":"Mira"' in exported
    assert stored[1:] == before[1:]
    assert parse_event_json(stored[0]).event_id == parse_event_json(before[0]).event_id
    assert app.backend.names[game] == {"mira": "Mira", "oren": FORGOTTEN, "tess": "Tess"}
    again = await app.forget(game=game)
    assert again.already is True
    assert app.backend.logs[game][0] == stored[0]


async def test_an_archived_log_written_with_names_inline_is_stored_again_without_them(
    app: App,
) -> None:
    from contracts.events import parse_event_json
    from services.archive.ports.cold import checksum_of

    await app.seal()
    archived = app.archive.games[GAME]
    inline = parse_event_json(lines()[0]).model_dump_json().encode()  # as stored before
    legacy = (inline, *archived.events[1:])
    app.archive.games[GAME] = dataclasses.replace(
        archived,
        events=legacy,
        names={},
        entry=dataclasses.replace(archived.entry, checksum=checksum_of(legacy)),
    )
    assert holds_name(app.archive.games[GAME].events[0])
    done = await app.forget()
    assert (done.tiers, done.already) == (("archive",), False)
    changed = app.archive.games[GAME]
    changed.verify()  # the new checksum covers the events as stored now
    assert changed.events[1:] == legacy[1:]
    assert [d for d in app.stored() if holds_name(d)] == []
    assert _leaks(await read_routes(app.http, GAME)) == []
    assert changed.names == {"mira": "Mira", "oren": FORGOTTEN, "tess": "Tess"}


async def test_a_game_forgotten_while_in_progress_never_shows_the_name_again(app: App) -> None:
    # A second game, forgotten at seq 10: the projector's cached fold of it held the name,
    # and the events after the forget are folded onto the log's fold (the pseudonym).
    game = "live-1"
    posted = [line.replace(GAME.encode(), game.encode()) for line in lines()]
    headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}

    async def post(part: list[bytes]) -> None:
        answer = await app.http.post(
            f"/games/{game}/events", content=b"[" + b",".join(part) + b"]", headers=headers
        )
        assert answer.status_code == 201, answer.text

    async def projected(seq: int) -> None:
        async def done() -> bool:
            got = await app.http.get(f"/games/{game}/standings")
            return got.status_code == 200 and got.json()["seq"] == seq

        await wait_until(done, 60, f"{game} projected to {seq}")

    await post(posted[:10])
    await projected(10)
    assert holds_name(json.dumps(app.backend.projections[game], ensure_ascii=False).encode())
    await app.forget(game=game)
    assert not holds_name(json.dumps(app.backend.projections[game], ensure_ascii=False).encode())
    await post(posted[10:])
    await projected(len(posted))
    assert not holds_name(json.dumps(app.backend.projections[game], ensure_ascii=False).encode())
    routes = await read_routes(app.http, game)
    assert [p for p, (_, body) in routes.items() if holds_name(body)] == []
    answer = await app.http.get(f"/games/{game}/standings")
    assert ranks_and_totals(answer.json()) == EXPECTED


async def test_a_game_in_both_tiers_is_forgotten_in_both(app: App) -> None:
    # Sealed, then brought back to Redis (as a write to an archived game does first): the
    # archived copy stays, shadowed, with the name; forget changes both copies.
    await app.seal()
    hot_games = app.service.ports.hot_games
    assert hot_games is not None
    assert await hot_games.restore(app.archive.games[GAME])
    assert app.backend.names[GAME][PLAYER] == NAME  # the archived names came back with it

    async def refolded() -> bool:
        return app.backend.projections.get(GAME, {}).get("seq") == str(len(lines()))

    await wait_until(refolded, 60, "the restored game refolded")
    done = await app.forget()
    assert (done.tiers, done.already) == (("hot", "archive"), False)
    assert [d for d in app.stored() if holds_name(d)] == []
    assert _leaks(await read_routes(app.http, GAME)) == []
    again = await app.forget()
    assert (again.tiers, again.already) == (("hot", "archive"), True)
