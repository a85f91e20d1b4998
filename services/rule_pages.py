"""The rule catalogue page of the docs (`integrating/rule-catalogue.md`, written at build by
docs/hooks.py): every rule id the game write route and the inbox can send, read from the code
as `contracts/rules.json` is (`services.rule_ids.catalogue`), with its HTTP status, the event
types it applies to, and what the service says when it refuses (the message of the code that
raises it, `…` where the sentence names the case at hand: an example of the `detail`).
`tests/contracts/test_rule_ids.py` checks the page lists exactly the catalogue's ids.
"""

from __future__ import annotations

import ast
from pathlib import Path

from services.rule_ids import ROOT, RuleId, catalogue

APPLIES = (
    ("trickerion.", "Trickerion events (`trickerion.*`)"),
    ("penumbra.", "Penumbra events (`penumbra.*`)"),
    ("void.", "`game.event_voided`"),
    ("correction.", "`game.score_corrected`"),
    ("log.", "every event (the game's log: seq, ids, first and last event)"),
    ("schema.", "every event (its JSON Schema)"),
)
"""Rule id prefix -> the event types it applies to; any other id applies to the request."""
SAID_ELSEWHERE = {
    "auth.token_rejected": "the Bearer token is not the game's write token",
    "read.*": "what the request names does not exist (`read.game_not_found`, `read.seq_not_found`, "
    "...); the family's member names it",
    "read.projection_pending": "the game's standings are not projected yet: retry after `Retry-After`",
    "request.invalid": "a path or query parameter is outside its bounds; `errors` lists them",
    "schema.field": "a field breaks the event's JSON Schema: `field` names it, `errors` lists "
    "up to 10 (type, loc, msg)",
}
"""The words for the ids whose code passes its sentence as a variable (no literal to read)."""
ROUTES = "`POST /games/{game_id}/events` (also with `?dry_run=true`) and the Redis inbox"


def applies_to(rule: str) -> str:
    """The event types `rule` can refuse, in words (`the request` when it is not an event's)."""
    return next((words for prefix, words in APPLIES if rule.startswith(prefix)), "the request")


def _text(node: ast.expr) -> str | None:
    """A literal string, or an f-string with `…` for what it fills in; else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(str(v.value) if isinstance(v, ast.Constant) else "…" for v in node.values)
    return None


def messages(root: Path = ROOT) -> dict[tuple[str, str], str]:
    """(rule, source) -> the longest message text the calls raising it in `source` pass."""
    found: dict[tuple[str, str], str] = {}
    for rule in catalogue(root):
        tree = ast.parse((root / rule.source).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            texts = [_text(a) for a in node.args]
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


def catalogue_page(root: Path = ROOT) -> str:
    """The markdown of the rule catalogue page."""
    said = messages(root)
    rows = [_row(r, said.get((r.rule, r.source), "")) for r in catalogue(root)]
    return "\n".join(
        [
            "# Rule catalogue",
            "",
            f"Every rule id {ROUTES} can send in a refusal (RFC 9457 problem, member `rule`; "
            "an inbox dead letter's `reason.rule`), generated from the code at each docs build, "
            "as `contracts/rules.json` is. *Applies to* names the event types the rule checks; "
            "*The service says* is the `detail` its code writes, `…` standing for the case at "
            "hand (an id, a number). A `*` in an id is a family: the code fills it in. "
            "Tournament and league routes answer in the same shape; their rule ids are on "
            "[tournament rules](../tournament-rules.md).",
            "",
            "| Rule id | Status | Applies to | The service says | Raised in |",
            "|---|---|---|---|---|",
            *rows,
            "",
        ]
    )
