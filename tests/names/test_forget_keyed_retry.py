"""A tournament registration sent again under its `Idempotency-Key` after the player was
forgotten: the same request, so it is answered as stored (docs/request-bounds.md, "A request
sent again under the same key finds its batch in the stream"), not refused as another
request. The stored batch is read back with the player's pseudonym
(docs/decisions/0014-names-outside-the-log.md), which `same_request` compares with the
retry's name."""

from __future__ import annotations

from tests.doors.test_tournaments_http import AUTH
from tests.names.helpers import NAME
from tests.names.test_forget_tournament import FORGOTTEN, Played, memory  # noqa: F401

KEYED = {**AUTH, "Idempotency-Key": "register-p3"}
BODY = {"player_id": FORGOTTEN, "name": NAME}


async def _registered(played: Played) -> tuple[int, bytes]:
    http = played.http
    new = {"tournament_id": "open", "title": "Open", "game": "penumbra", "rounds": 1}
    assert (await http.post("/tournaments", json=new, headers=AUTH)).status_code == 201
    first = await http.post("/tournaments/open/players", json=BODY, headers=KEYED)
    assert first.status_code == 201, first.text
    return first.status_code, first.content


async def test_a_keyed_registration_sent_again_is_answered_as_stored(
    memory: Played,  # noqa: F811
) -> None:
    first = await _registered(memory)
    again = await memory.http.post("/tournaments/open/players", json=BODY, headers=KEYED)
    assert (again.status_code, again.content) == first


async def test_a_keyed_registration_sent_again_after_a_forget_is_answered_as_stored(
    memory: Played,  # noqa: F811
) -> None:
    first = await _registered(memory)
    forget = memory.cases.forget
    assert forget is not None
    await forget.forget_tournament("open", FORGOTTEN)
    again = await memory.http.post("/tournaments/open/players", json=BODY, headers=KEYED)
    # was 422 idempotency.key_reused: the stored batch reads `player-1`, the retry `NAME`
    assert (again.status_code, again.content) == first, again.text
