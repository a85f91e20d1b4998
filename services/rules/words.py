"""What the service says for each rule id, read from the code that raises it: the `detail`
sentence (`…` for what the code fills in, an id or a number) and the `field` at fault, and
an example problem body built from them (the wire shape of `services.platform.problems`).
The rule catalogue page and `contracts/rules.json` show these.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from services.platform.problems import problem
from services.rules.ids import literal_text

ROOT = Path(__file__).resolve().parents[2]

SAID_ELSEWHERE = {
    "auth.token_rejected": "the Bearer token is not the game's write token",
    "read.*": "what the request names does not exist (`read.game_not_found`, `read.seq_not_found`, "
    "...); the family's member names it",
    "read.projection_pending": "the game's standings are not projected yet: retry after `Retry-After`",
    "request.invalid": "a path or query parameter is outside its bounds; `errors` lists them",
    "export.game_not_final": "the game is not final: only a finished play is exported",
    "qr.host": "the request's Host header cannot be put in a code",
    "qr.busy": "too many codes are being drawn: retry after `Retry-After`",
    "tournament.watch_full": "the tournament has its most live watchers: retry later",
    "body.unreadable": "an inbox entry's data cannot be decoded (the decoder's error follows)",
    "schema.version": "the event's `schema_version` is not one this type has (the known "
    "ones follow)",
    "log.seq_order": "expected seq …, got … (an earlier seq than the next)",
    "schema.field": "a field breaks the event's JSON Schema: `field` names it, `errors` lists "
    "up to 10 (type, loc, msg)",
}
"""The words for the ids whose code passes its sentence as a variable (no literal to read)."""


@dataclass(frozen=True, slots=True)
class Words:
    """A rule id's `detail` (one line; `…` for a variable part) and `field` (or None)."""

    detail: str
    field: str | None


def _text(node: ast.expr) -> str | None:
    """A literal string, or an f-string with `…` for what it fills in; else None."""
    if (text := literal_text(node, "…")) is not None:
        return text
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):  # "a: " + "; ".join(...)
        left, right = _text(node.left), _text(node.right)
        if left is not None or right is not None:
            return (left or "…") + (right or "…")
    return None


FIELD_AT = {"RuleViolation": 2, "Refusal": 3, "cls": 3, "problem": 2, "_Refused": 3}
"""Callee -> the position of its `field` argument (the refusing calls' signatures)."""


@functools.cache
def _calls(path: Path) -> tuple[tuple[str, tuple[str | None, ...]], ...]:
    """(callee name, its literal or f-string arguments, None for others) of every call in
    one file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return tuple(
        (
            str(getattr(node.func, "id", None) or getattr(node.func, "attr", "")),
            tuple(_text(a) for a in node.args),
        )
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
    )


def _names(rules: Iterable[str]) -> dict[str, list[str]]:
    """A literal in the code -> the rule ids it names: the id itself (`…` for `*`), its
    family's f-string (`f"{kind}.not_created"` names `league.not_created`), or its name
    without the family (`_Refused(409, "game_not_final")` names `export.game_not_final`)."""
    names: dict[str, list[str]] = {}
    for rule in rules:
        names.setdefault(rule.replace("*", "…"), []).append(rule)
        if "." in rule and "*" not in rule:
            tail = rule.split(".", 1)[1]
            names.setdefault("…." + tail, []).append(rule)
            if "_" in tail:
                names.setdefault(tail, []).append(rule)
    return names


def _said(callee: str, args: tuple[str | None, ...], at: int) -> Words:
    """The words of a call whose argument `at` is the rule."""
    said = max((t for t in args[at + 1 :] if t and " " in t), key=len, default="")
    where = FIELD_AT.get(callee, len(args))
    return Words(" ".join(said.split()), args[where] if where < len(args) else None)


def words(rules: Iterable[str], root: Path = ROOT) -> dict[str, Words]:
    """Rule id -> what the calls passing it say: the longest sentence (a literal with a
    space) after the id is the `detail`, the argument at the callee's `FIELD_AT` position
    the `field` (`RuleViolation(rule, message, field)`, `problem(status, rule, field,
    detail)`); an id no call says words for takes `SAID_ELSEWHERE`'s."""
    wanted = list(rules)
    names = _names(wanted)
    found: dict[str, Words] = {}
    files = sorted((root / "domain").rglob("*.py")) + sorted((root / "services").rglob("*.py"))
    for path in files:
        for callee, args in _calls(path):
            at = next((i for i, t in enumerate(args) if (t or "").replace("*", "…") in names), None)
            if at is None:
                continue
            said = _said(callee, args, at)
            for rule in names[(args[at] or "").replace("*", "…")]:
                old = found.get(rule)
                if old is None or len(said.detail) > len(old.detail):
                    found[rule] = said
    for rule in wanted:
        old = found.get(rule, Words("", None))
        if not old.detail:
            found[rule] = Words(SAID_ELSEWHERE.get(rule, ""), old.field)
    return found


def example(rule: str, status: int, said: Words) -> dict[str, Any]:
    """An example problem body of `rule`, as `services.platform.problems.problem` builds it
    (RFC 9457, the shape every door answers); a 422 names the first event of the batch."""
    index = 0 if status == 422 else None
    item = problem(status, rule, said.field, said.detail or None, index=index)
    return item.model_dump(mode="json", exclude_none=True)
