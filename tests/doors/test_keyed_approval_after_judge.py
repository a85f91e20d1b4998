"""An organiser's approval sent under an `Idempotency-Key`, stored, its answer lost; a judge is
appointed; the approval is sent again under the same key. docs/request-bounds.md: "A request
sent again under the same key finds its batch in the stream. It is answered from the state
right after that batch, with the status and body a successful write would have had. The
rules are not checked again." So the retry is answered as stored, while the judge rule
(docs/tournaments.md, Judges) still refuses every organiser approval that is not stored
already (no key, a new key), the token is still checked first, and a key stored for another
request is still refused."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.doors.test_tournaments_http import AUTH, memory_app, problem_of, setup

URL = "/tournaments/cup/tables/{}/result"
APPROVE = {"action": "approve", "round": 1}
KEYED = {**AUTH, "Idempotency-Key": "approve-t1"}


def reported_round(http: TestClient) -> list[list[str]]:
    """Round 1 seated (7 players: a 4 and a 3) and both tables reported; the tables' players."""
    setup(http)
    seated = http.post("/tournaments/cup/rounds", headers=AUTH)
    assert seated.status_code == 201, seated.text
    tables = [t["players"] for t in seated.json()["tables"]]
    for n, players in enumerate(tables, 1):
        results = [{"player_id": p, "place": i, "score": 30 - i} for i, p in enumerate(players, 1)]
        report = {"action": "report", "round": 1, "results": results, "by": players[0]}
        assert http.post(URL.format(n), json=report, headers=AUTH).status_code == 200
    return tables


def approved_then_judged(http: TestClient) -> dict[str, Any]:
    """Table 1 approved by the organiser under `KEYED`, then judge `jo` appointed; the
    approval's answer."""
    reported_round(http)
    first = http.post(URL.format(1), json=APPROVE, headers=KEYED)
    assert first.status_code == 200, first.text
    judge = {"judge_id": "jo", "name": "Jo"}
    assert http.post("/tournaments/cup/judges", json=judge, headers=AUTH).status_code == 201
    answer: dict[str, Any] = first.json()
    return answer


def table_status(http: TestClient, n: int) -> str:
    status: str = http.get("/tournaments/cup").json()["rounds"][0]["tables"][n - 1]["status"]
    return status


def test_a_keyed_approval_sent_again_after_a_judge_is_appointed_answers_as_stored() -> None:
    with TestClient(memory_app()) as http:
        first = approved_then_judged(http)
        again = http.post(URL.format(1), json=APPROVE, headers=KEYED)
        assert (again.status_code, again.json()) == (200, first), again.text


def test_a_new_organiser_approval_after_a_judge_is_appointed_is_refused() -> None:
    with TestClient(memory_app()) as http:
        approved_then_judged(http)
        seq = http.get("/tournaments/cup").json()["seq"]
        fresh = {**AUTH, "Idempotency-Key": "approve-t2"}
        for headers in (AUTH, fresh, fresh):  # no key; a new key, twice (nothing was stored)
            refused = http.post(URL.format(2), json=APPROVE, headers=headers)
            problem_of(refused, 403, "auth.judge_required")
        dispute = {"action": "dispute", "round": 1, "reason": "miscount", "by": "p01"}
        disputing = {**AUTH, "Idempotency-Key": "dispute-t2"}
        problem_of(
            http.post(URL.format(2), json=dispute, headers=disputing), 403, "auth.judge_required"
        )
        assert table_status(http, 2) == "reported"
        assert http.get("/tournaments/cup").json()["seq"] == seq


def test_a_keyed_retry_after_a_judge_is_appointed_still_checks_the_token_and_the_request() -> None:
    with TestClient(memory_app()) as http:
        approved_then_judged(http)
        seq = http.get("/tournaments/cup").json()["seq"]
        key = {"Idempotency-Key": "approve-t1"}
        problem_of(http.post(URL.format(1), json=APPROVE, headers=key), 401, "auth.token_required")
        wrong = {**key, "Authorization": "Bearer not-the-organiser-token-0123456789"}
        problem_of(
            http.post(URL.format(1), json=APPROVE, headers=wrong), 403, "auth.token_rejected"
        )
        # The key names table 1's approval: table 2's under it is another request.
        problem_of(
            http.post(URL.format(2), json=APPROVE, headers=KEYED), 422, "idempotency.key_reused"
        )
        assert table_status(http, 2) == "reported"
        assert http.get("/tournaments/cup").json()["seq"] == seq
