"""An organiser's approval sent under an `Idempotency-Key`, stored, its answer lost; a judge is
appointed; the approval is sent again under the same key. docs/request-bounds.md: "A request
sent again under the same key finds its batch in the stream. It is answered from the state
right after that batch, with the status and body a successful write would have had. The
rules are not checked again." `TableRulings.rule_on_table` checks who may approve
(`_judged`: `auth.judge_required` once the tournament has a judge) before it looks for the
key's batch, so the retry of an approval that is in the stream is refused 403, and the client
is told its approval did not happen."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.doors.test_tournaments_http import AUTH, memory_app, setup


@pytest.mark.xfail(
    strict=True,
    reason="known: the judge rule is checked before the key's stored request is looked up (TableRulings.rule_on_table)",
)
def test_a_keyed_approval_sent_again_after_a_judge_is_appointed_answers_as_stored() -> None:
    with TestClient(memory_app()) as http:
        setup(http)
        seated = http.post("/tournaments/cup/rounds", headers=AUTH)
        assert seated.status_code == 201, seated.text
        players = seated.json()["tables"][0]["players"]
        results = [{"player_id": p, "place": i, "score": 30 - i} for i, p in enumerate(players, 1)]
        url = "/tournaments/cup/tables/1/result"
        report = {"action": "report", "round": 1, "results": results, "by": players[0]}
        assert http.post(url, json=report, headers=AUTH).status_code == 200
        keyed = {**AUTH, "Idempotency-Key": "approve-t1"}
        approve = {"action": "approve", "round": 1}
        first = http.post(url, json=approve, headers=keyed)
        assert first.status_code == 200, first.text
        judge = {"judge_id": "jo", "name": "Jo"}
        assert http.post("/tournaments/cup/judges", json=judge, headers=AUTH).status_code == 201
        again = http.post(url, json=approve, headers=keyed)
        # fails on main: 403 auth.judge_required, though the approval is in the stream
        assert (again.status_code, again.json()) == (200, first.json()), again.text
