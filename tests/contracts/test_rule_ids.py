"""The rule ids the game write route documents are the ones its code sends.

`contracts/rules.json` is read from the code (`services.rules.ids`): the committed file must
equal a fresh scan (drift), every refusal the doors really answer in a run must be in it, and
the OpenAPI text of the route and of the shared `Problem` names only ids in it (it named
`log.seq_gap` and `auth.token_missing`, which this route never sends)."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
from fastapi import FastAPI

from services.bootstrap import memory_ports, use_cases
from services.doors.ingest.http import ingest_router
from services.platform.settings import ServiceSettings
from services.rules.catalogue import rules_json
from services.rules.ids import ROOT, catalogue
from tests.pipeline.factory import corrected, game_log

COMMITTED = ROOT / "contracts" / "rules.json"
TOKEN = "owner-of-g1-chose-this-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
RULE_LIKE = re.compile(r"`((?:auth|body|schema|log|request|read|void|correction)\.[a-z_.*]+)`")


def section(page: str, heading: str) -> list[str]:
    """The lines of the page's `## heading` section (to the next `## `)."""
    lines = page.splitlines()
    start = lines.index(f"## {heading}")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), None)
    return lines[start + 1 : end]


def documented() -> set[str]:
    return {r["rule"] for r in json.loads(COMMITTED.read_text(encoding="utf-8"))["rules"]}


def matches(rule: str, ids: set[str]) -> bool:
    """`rule` is one of `ids`, or of a family there (`read.*`)."""
    return rule in ids or any(
        "*" in i and re.fullmatch(re.escape(i).replace(r"\*", "[a-z_.]+"), rule) for i in ids
    )


def test_the_committed_catalogue_is_the_code_s() -> None:
    assert COMMITTED.read_text(encoding="utf-8") == rules_json()


def test_the_catalogue_holds_the_write_path_ids_and_not_the_stale_ones() -> None:
    ids = {r.rule for r in catalogue()}
    wanted = {
        "auth.token_required",
        "auth.token_rejected",
        "log.expected_version",
        "log.event_id_reused",
        "schema.field",
        "body.too_large",
        "trickerion.advertise.once_per_turn",
    }
    assert wanted <= ids
    assert not {"log.seq_gap", "auth.token_missing"} & ids


async def test_every_refusal_a_run_answers_is_documented() -> None:
    ports = memory_ports(4)
    app = FastAPI()
    app.include_router(ingest_router(use_cases(ports, ServiceSettings(shards=4)).record))
    log = game_log("g1", 4)
    bodies: list[tuple[Any, dict[str, str] | None]] = [
        ([e.to_wire() for e in log[:2]], AUTH),
        ([log[2].to_wire()], None),
        ([log[2].to_wire()], {"Authorization": "Bearer " + "x" * 40}),
        ([log[3].to_wire()], AUTH),
        ([{**log[2].to_wire(), "seq": "three"}], AUTH),
        ([corrected("g1", 3, "nobody", 1).to_wire()], AUTH),
        ([{**log[1].to_wire(), "actor": "someone else"}], AUTH),
        ([], AUTH),
    ]
    seen = set()
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://ingest") as http:
        for body, headers in bodies:
            answer = await http.post("/games/g1/events", json=body, headers=headers)
            if answer.status_code >= 400:
                seen.add((answer.json()["rule"], answer.status_code))
        bad = await http.post("/games/g1/events", content=b"{nope", headers=AUTH)
        seen.add((bad.json()["rule"], bad.status_code))
    statuses = {(r.rule, r.status) for r in catalogue()}
    assert len(seen) == 8, seen
    assert seen <= statuses


def test_the_route_and_the_problem_shape_name_only_ids_the_route_sends() -> None:
    document = json.loads((ROOT / "contracts" / "openapi.json").read_text(encoding="utf-8"))
    texts = [
        json.dumps(document["paths"]["/games/{game_id}/events"]),
        json.dumps(document["components"]["schemas"]["Problem"]),
    ]
    named = {m for text in texts for m in RULE_LIKE.findall(text)}
    assert named, "the documents name some rule ids"
    ids = documented()
    assert {n for n in named if not matches(n, ids)} == set()


def test_the_rule_catalogue_page_lists_exactly_the_ids_the_code_raises() -> None:
    """The docs' rule catalogue (generated at build by docs/hooks.py) has one row per rule id
    and source of the scan, each with its status, the event types it applies to and the
    service's words; a rule raised in the code and missing from the page fails here."""
    from services.rules.pages import WRITE_HEADING, applies_to, catalogue_page

    rows = [line for line in section(catalogue_page(), WRITE_HEADING) if line.startswith("| `")]
    listed = {(row.split("`")[1], row.split("|")[-2].strip().strip("`")) for row in rows}
    assert listed == {(r.rule, r.source) for r in catalogue()}
    assert {row.split("`")[1] for row in rows} == documented()
    for row in rows:
        cells = [c.strip() for c in row.split("|")[1:-1]]
        assert cells[1].isdigit(), row
        assert cells[2] == applies_to(cells[0].strip("`"))
        assert cells[3], f"no words for {cells[0]}"
    assert applies_to("trickerion.trick.already_owned") == "`trickerion.trick_learned`"
    assert applies_to("void.of_void") == "`game.event_voided`"
    assert applies_to("trickerion.turn.order") == "`game.turn_started` (trickerion)"
    assert applies_to("log.expected_version") == "the request"
