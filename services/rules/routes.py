"""The rule ids each HTTP route family can answer with, read from the code of the doors and
use cases that serve it (Python's `ast`, nothing run) and from the event types it appends.

A route family (`RouteRules`) names its routes by an OpenAPI path pattern and methods, the
modules that refuse for it, and the stream whose event types it appends (their ids come from
`services.rules.map`). In those modules a call refuses with a rule id when it passes:

- a refusal kind and then a rule (`Refusal("forbidden", "auth.token_rejected", ...)`): the
  status of the kind (`services.rules.ids.STATUS_OF_KIND`, else 422);
- an HTTP error status and then a rule (`problem(404, "league.not_found", ...)`, the replay
  queue's `_refuse(503, "replay.deadline", ...)`): that status;
- a rule first (`RuleViolation("tournament.unknown_table", ...)`): 422.

A rule is a dotted lower-case id; an f-string's variable part is `*` (`read.*`, a family).
The modules every app answers with (`services.rules.ids.SHARED`: body limits, storage faults,
unknown reads) belong to every family. `tests/contracts/test_rule_ids.py` checks that every
route of `contracts/openapi.json` that answers a problem belongs to one family.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from services.rules.ids import ROOT, SHARED, STATUS_OF_KIND, catalogue, literal_text
from services.rules.map import event_rules

RULE = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z0-9_*]+)+$")
KINDS = {*STATUS_OF_KIND, "invalid", "rule"}
PREFIXED = {"_Refused": "export."}
"""A door's own refusal that adds its family to the name it is given (`export.<error>`)."""


@dataclass(frozen=True, slots=True)
class RouteFamily:
    """Routes whose OpenAPI path matches `paths` with a method in `methods`: refused by the
    calls of `modules` (repository-relative) and by the event types of stream `events`."""

    name: str
    paths: str
    methods: frozenset[str]
    modules: tuple[str, ...]
    events: str | None = None


_UC = "services/usecases/"
_TUC = "services/tournaments/usecases/"
_TOURNAMENT_WRITES = (
    "services/tournaments/doors/ingest.py",
    "services/tournaments/doors/ingest_club.py",
    "services/tournaments/doors/ingest_writes.py",
    "services/doors/ingest/stream_writes.py",
    "services/tournaments/doors/ingest_approvals.py",
    *(_TUC + m for m in ("stream.py", "access.py", "desk.py", "rulings.py", "tables.py")),
    *(_UC + m for m in ("idempotency.py", "authorize.py")),
)
_READ = ("services/doors/query/routes.py", "services/doors/push/routes.py")
_WRITE = frozenset({"POST", "DELETE"})
_GET = frozenset({"GET"})

FAMILIES: tuple[RouteFamily, ...] = (
    RouteFamily("games", r"^/games/\{game_id\}/events$", frozenset({"POST"}), (), "game"),
    RouteFamily("tournaments", r"^/tournaments", _WRITE, _TOURNAMENT_WRITES, "tournament"),
    RouteFamily(
        "leagues",
        r"^/leagues",
        _WRITE,
        (
            "services/leagues/doors/ingest.py",
            "services/doors/ingest/stream_writes.py",
            "services/leagues/usecases/stream.py",
            _UC + "idempotency.py",
            _UC + "authorize.py",
        ),
        "league",
    ),
    RouteFamily(
        "replay",
        r"^/games/\{game_id\}/(series|timeline|dispute|replay)",
        _GET,
        (*_READ, "services/doors/web/routes.py", "services/runtime/fairqueue.py"),
    ),
    RouteFamily("exports", r"^/games/\{game_id\}/export/", _GET, ("services/doors/web/routes.py",)),
    RouteFamily(
        "reads",
        r"^/(games|board|tournaments|leagues|players|healthz|readyz)",
        _GET,
        (
            *_READ,
            "services/doors/web/routes.py",
            "services/tournaments/doors/web.py",
            "services/tournaments/doors/query.py",
            "services/leagues/doors/query.py",
            "services/tournaments/doors/push.py",
            "services/tournaments/doors/ingest_club.py",
            "services/leagues/doors/web_players.py",
        ),
    ),
)
"""Every route family, first match wins (`family_of`): the reads after the replays and
exports they would otherwise take."""


def _refusal(call: ast.Call) -> tuple[str, int] | None:
    """(rule, status) a call refuses with, by the shapes of the module doc; else None."""
    args = call.args
    name = getattr(call.func, "id", None) or getattr(call.func, "attr", None)
    first = args[0] if args else None
    second = literal_text(args[1]) if len(args) >= 2 else None
    status = first.value if isinstance(first, ast.Constant) else None
    if isinstance(status, int) and 400 <= status <= 599 and second is not None:
        rule = PREFIXED.get(str(name), "") + second
        return (rule, status) if RULE.match(rule) else None
    kind = literal_text(first) if first is not None else None
    if kind in KINDS and second is not None and RULE.match(second):
        return second, STATUS_OF_KIND.get(kind or "", 422)
    if name == "RuleViolation" and kind is not None and RULE.match(kind):
        return kind, 422
    return None


def scan(modules: tuple[str, ...], root: Path = ROOT) -> set[tuple[str, int]]:
    """(rule, status) of every refusing call in `modules`."""
    found: set[tuple[str, int]] = set()
    for name in modules:
        tree = ast.parse((root / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and (hit := _refusal(node)) is not None:
                found.add(hit)
    return found


def family_rules(family: RouteFamily, root: Path = ROOT) -> list[tuple[str, int]]:
    """(rule, status) sorted, every refusal the family's routes can answer with."""
    found = scan((*family.modules, *SHARED), root)
    if family.name == "games":  # the write route's own scan, inbox included
        found |= {(r.rule, r.status) for r in catalogue(root)}
    found |= {(r, 422) for e in event_rules() if e.stream == family.events for r in e.rules}
    return sorted(found)


def family_of(path: str, method: str) -> RouteFamily | None:
    """The first family whose pattern and methods take `method path`, or None."""
    return next(
        (f for f in FAMILIES if method.upper() in f.methods and re.search(f.paths, path)), None
    )
