"""`contracts/rules.json`: the rule catalogue as data, read from the code at `make schemas`.

Members: `route` and `rules` (the game write route's ids with status and source file,
`services.rules.ids`); `event_types` (per stream and game, the ids each event type's checks
can raise, `services.rules.map`); `routes` (per route family, its OpenAPI routes and the ids
with the status they answer, `services.rules.routes`); `meanings` (per id, the `detail` the
service writes, `…` for the case at hand, the `field` at fault and an example problem body,
`services.rules.words`). A drift test (tests/contracts/test_rule_ids.py) fails when the code
and the committed file differ.
"""

from __future__ import annotations

import json
from typing import Any

from services.rules.ids import ROOT, catalogue
from services.rules.map import event_rules
from services.rules.routes import FAMILIES, family_of, family_rules
from services.rules.words import example, words

OPENAPI = ROOT / "contracts" / "openapi.json"


def routes_of(family: str) -> list[str]:
    """`METHOD path` of every operation of `contracts/openapi.json` in the family `family`."""
    spec = json.loads(OPENAPI.read_text(encoding="utf-8"))
    return [
        f"{method.upper()} {path}"
        for path, item in spec["paths"].items()
        for method in item
        if (f := family_of(path, method)) is not None and f.name == family
    ]


def document() -> dict[str, Any]:
    """The whole catalogue (see the module doc)."""
    write = catalogue()
    events = event_rules()
    families = {f.name: family_rules(f) for f in FAMILIES}
    statuses: dict[str, int] = {}
    for pairs in families.values():
        for rule, status in pairs:
            statuses.setdefault(rule, status)
    for e in events:
        for rule in e.rules:
            statuses.setdefault(rule, 422)
    said = words(statuses)
    return {
        "route": "POST /games/{game_id}/events",
        "rules": [{"rule": r.rule, "status": r.status, "source": r.source} for r in write],
        "event_types": [
            {"stream": e.stream, "game": e.game, "type": e.type, "rules": list(e.rules)}
            for e in events
        ],
        "routes": [
            {
                "family": name,
                "routes": routes_of(name),
                "rules": [{"rule": r, "status": s} for r, s in pairs],
            }
            for name, pairs in families.items()
        ],
        "meanings": {
            rule: {
                "detail": said[rule].detail,
                "field": said[rule].field,
                "example": example(rule, status, said[rule]),
            }
            for rule, status in sorted(statuses.items())
        },
    }


def rules_json() -> str:
    """`contracts/rules.json` text (two-space JSON, a final newline)."""
    return json.dumps(document(), indent=2, ensure_ascii=False) + "\n"
