"""An exact retry of a game's creation after one of its players was forgotten, answered by an
ingest process that did not write the game (another replica, or this one restarted or with
the game evicted from its state cache): the retry must be the duplicate it is, as when the
writer that created the game answers it (tests/names/test_forget.py,
`test_a_retried_creation_is_a_duplicate_and_brings_no_name_back`). Names live outside the log
(docs/decisions/0014-names-outside-the-log.md); an exact retry answers as the first write
(docs/integrating/http.md), and a reused event id is refused only for another body."""

from __future__ import annotations

import httpx

from contracts.names import FORGOTTEN
from services.bootstrap import Roles, Service, assemble, use_cases
from tests.names.helpers import GAME, NAME, PLAYER, lines
from tests.names.test_forget import TOKEN, App, _NoClient, app  # noqa: F401  (the fixture)

HEADERS = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}


async def _post_elsewhere(built: App, body: bytes) -> httpx.Response:
    """`body` posted to a second ingest-only process on the same stores (its caches empty)."""
    first = built.service
    cases = use_cases(first.ports, first.settings)
    other = Service(first.settings, _NoClient(), first.keys, first.ports, cases)  # type: ignore[arg-type]
    ingest = assemble(other, Roles(inbox=False, projector=False, query=False)).app
    transport = httpx.ASGITransport(app=ingest)
    async with httpx.AsyncClient(transport=transport, base_url="http://sl") as http:
        return await http.post(f"/games/{GAME}/events", content=body, headers=HEADERS)


async def test_a_retried_creation_elsewhere_is_a_duplicate_before_a_forget(
    app: App,  # noqa: F811
) -> None:
    again = await _post_elsewhere(app, lines()[0])
    assert again.status_code == 201, again.text
    assert again.json()["appended"][0]["duplicate"] is True


async def test_a_retried_creation_elsewhere_is_a_duplicate_after_a_forget(
    app: App,  # noqa: F811
) -> None:
    await app.forget()
    again = await _post_elsewhere(app, lines()[0])
    assert again.status_code == 201, again.text  # was 422 log.event_id_reused
    assert again.json()["appended"][0]["duplicate"] is True
    assert app.backend.names[GAME][PLAYER] == FORGOTTEN


async def test_a_retried_batch_elsewhere_is_all_duplicates_after_a_forget(
    app: App,  # noqa: F811
) -> None:
    await app.forget()
    body = b"[" + b",".join(lines()[:3]) + b"]"
    again = await _post_elsewhere(app, body)
    assert again.status_code == 201, again.text
    assert [e["duplicate"] for e in again.json()["appended"]] == [True] * 3


async def test_a_retry_differing_only_in_a_name_is_answered_alike_by_every_process(
    app: App,  # noqa: F811
) -> None:
    """The name is kept outside the log, so a retry differing only in it states the same
    fact: a duplicate at the writer that kept the game folded and at a process that folds it
    from the store (which refused it before, as another body), and the kept name unchanged."""
    renamed = lines("Someone Else")[0]
    at_writer = await app.http.post(f"/games/{GAME}/events", content=renamed, headers=HEADERS)
    elsewhere = await _post_elsewhere(app, renamed)
    for answer in (at_writer, elsewhere):
        assert answer.status_code == 201, answer.text
        assert answer.json()["appended"][0]["duplicate"] is True
    assert app.backend.names[GAME][PLAYER] == NAME
