"""The rule catalogue page of the docs (`integrating/rule-catalogue.md`, written at build by
docs/hooks.py), read from the code as `contracts/rules.json` is: the game write route's and
the inbox's ids with status, the event types each applies to and the source that raises it
(`services.rules.ids.catalogue`); then the ids by route family, by event type, and each id's
words and example problem (`services.rules.catalogue.document`). `…` in a sentence stands for
the case at hand. `tests/contracts/test_rule_ids.py` and `test_rule_catalogue.py` check the
page lists exactly the code's ids.
"""

from __future__ import annotations

import ast
import functools
import json
from pathlib import Path
from typing import Any

from services.rules.catalogue import document
from services.rules.ids import ROOT, RuleId, catalogue, literal_text
from services.rules.map import OTHER, EventRules, event_rules
from services.rules.words import SAID_ELSEWHERE

ROUTES = "`POST /games/{game_id}/events` (also with `?dry_run=true`) and the Redis inbox"
WRITE_HEADING = "Game write route and inbox"
"""The heading of the write route's section (its rows are read by the drift test)."""


@functools.cache
def _types_of() -> dict[str, list[str]]:
    """Rule id -> the event types listing it (`services.rules.map`): a common type (`game.*`)
    as `type (game)` when not every game lists it there, `every … event` for an id every
    type of a stream (or game) lists."""
    groups: dict[str, list[EventRules]] = {}
    for e in event_rules():
        groups.setdefault(e.game or e.stream, []).append(e)
    games_of: dict[tuple[str, str], set[str]] = {}
    for e in event_rules():
        for rule in e.rules:
            games_of.setdefault((rule, e.type), set()).add(e.game or e.stream)
    found: dict[str, list[str]] = {}
    for group, rows in groups.items():
        every = set.intersection(*(set(r.rules) for r in rows))
        for rule in sorted(every):
            found.setdefault(rule, []).append(f"every {group} event")
        for row in rows:
            for rule in row.rules:
                if rule in every:
                    continue
                kind = (
                    f"another game's event (in a {group} game)"
                    if row.type == OTHER
                    else f"`{row.type}`"
                )
                shared = len(games_of[(rule, row.type)]) > 1 and row.type != OTHER
                own = shared or not row.type.startswith("game.")  # a game's own type
                name = kind if own else f"{kind} ({group})"
                if name not in found.setdefault(rule, []):
                    found[rule].append(name)
    return found


def applies_to(rule: str) -> str:
    """The event types whose checks can raise `rule` (`services.rules.map`), in words; `the
    request` for an id no event type's checks raise (a route's own)."""
    return ", ".join(_types_of().get(rule, [])) or "the request"


def messages(root: Path = ROOT) -> dict[tuple[str, str], str]:
    """(rule, source) -> the longest message text the calls raising it in `source` pass."""
    found: dict[tuple[str, str], str] = {}
    for rule in catalogue(root):
        tree = ast.parse((root / rule.source).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            texts = [literal_text(a, "…") for a in node.args]
            pattern = rule.rule.replace("*", "…")
            at = [
                i for i, t in enumerate(texts) if t is not None and t.replace("*", "…") == pattern
            ]
            if not at:
                continue
            after = [t for t in texts[at[0] + 1 :] if t is not None]  # the rule, then its words
            said = max(after, key=len, default="")
            if len(said) > len(found.get((rule.rule, rule.source), "")):
                found[(rule.rule, rule.source)] = said
    return found


def _row(rule: RuleId, said: str) -> str:
    said = said or SAID_ELSEWHERE.get(rule.rule, "")
    cell = " ".join(said.split()).replace("|", "\\|")
    return f"| `{rule.rule}` | {rule.status} | {applies_to(rule.rule)} | {cell} | `{rule.source}` |"


HOW = (
    "How the lists are found. *By event type*: `services.rules.map` starts from each fold's "
    "own dispatch, read live (a game ruleset's `start`, `end` and its module's `HANDLERS` "
    "table; a tournament's or league's stream fold and its `_HANDLERS`), and "
    "`services.rules.reach` follows what each handler's compiled code names (functions, "
    "closures, lambdas, methods of its package's classes) to every `RuleViolation` it can "
    "reach. A handler added or changed is followed with no list to edit; the walk may list "
    "an id a state never reaches, it does not miss one a handler raises (a test replays "
    "refused events and checks each refusal's id is listed for its type). *By route*: "
    "`services.rules.routes` reads the refusing calls of the doors and use cases serving "
    "each route family, adds the ids of the event types the family appends and the shared "
    "answers (limits, storage faults, unknown reads)."
)


def _by_route(doc: dict[str, Any]) -> list[str]:
    out = ["## By route", ""]
    for family in doc["routes"]:
        routes = ", ".join(f"`{r}`" for r in family["routes"])
        out += [f"### {family['family'].capitalize()}", "", f"Routes: {routes}.", ""]
        by_status: dict[int, list[str]] = {}
        for item in family["rules"]:
            by_status.setdefault(item["status"], []).append(f"`{item['rule']}`")
        out += ["| Status | Rule ids |", "|---|---|"]
        out += [f"| {status} | {', '.join(ids)} |" for status, ids in sorted(by_status.items())]
        out.append("")
    return out


def _by_event_type(doc: dict[str, Any]) -> list[str]:
    out = ["## By event type", ""]
    groups: dict[tuple[str, str | None], list[dict[str, Any]]] = {}
    for e in doc["event_types"]:
        groups.setdefault((e["stream"], e["game"]), []).append(e)
    for (stream, game), rows in groups.items():
        every = set.intersection(*(set(r["rules"]) for r in rows))
        out += [f"### {(game or stream).capitalize()} events", ""]
        out += ["Every event: " + ", ".join(f"`{r}`" for r in sorted(every)) + ".", ""]
        out += ["| Event type | Its own rule ids |", "|---|---|"]
        for row in rows:
            kind = "any other type (another game's)" if row["type"] == OTHER else f"`{row['type']}`"
            own = ", ".join(f"`{r}`" for r in row["rules"] if r not in every) or "none"
            out.append(f"| {kind} | {own} |")
        out.append("")
    return out


def _meanings(doc: dict[str, Any]) -> list[str]:
    out = ["## Meanings", "", "What the service says for each id, and an example problem body.", ""]
    out += ["| Rule id | The service says | Field | Example |", "|---|---|---|---|"]
    for rule, said in doc["meanings"].items():
        body = json.dumps(said["example"], ensure_ascii=False).replace("|", "\\|")
        field = f"`{said['field']}`" if said["field"] else ""
        detail = said["detail"].replace("|", "\\|")
        out.append(f"| `{rule}` | {detail} | {field} | `{body}` |")
    return [*out, ""]


def catalogue_page(root: Path = ROOT) -> str:
    """The markdown of the rule catalogue page: the write route's ids with their source,
    then (from `services.rules.catalogue.document`, as `contracts/rules.json`) the ids by
    route family and by event type, and each id's meaning and example problem."""
    said = messages(root)
    rows = [_row(r, said.get((r.rule, r.source), "")) for r in catalogue(root)]
    doc = document()
    return "\n".join(
        [
            "# Rule catalogue",
            "",
            "Every rule id a route can answer in a refusal (RFC 9457 problem, member `rule`; "
            "an inbox dead letter's `reason.rule`), by route and by event type, generated "
            "from the code at each docs build, as `contracts/rules.json` is (the same lists "
            "as data: `routes`, `event_types`, `meanings`). A `*` in an id is a family: the "
            "code fills it in. Tournament rules in words: [tournament rules]"
            "(../tournament-rules.md).",
            "",
            HOW,
            "",
            f"## {WRITE_HEADING}",
            "",
            f"Every rule id {ROUTES} can send. *Applies to* names the event types the rule "
            "checks; *The service says* is the `detail` its code writes, `…` standing for the "
            "case at hand (an id, a number).",
            "",
            "| Rule id | Status | Applies to | The service says | Raised in |",
            "|---|---|---|---|---|",
            *rows,
            "",
            *_by_route(doc),
            *_by_event_type(doc),
            *_meanings(doc),
        ]
    )
