"""The rule ids the game write route (`POST /games/{game_id}/events`, and the inbox, which
refuses with the same ids) can send, read from the code that raises them.

`catalogue()` scans the source (Python's `ast`, nothing imported or run) for the rule id of
every `Refusal(...)` of the write path's use cases and the inbox, every `RuleViolation(...)`
of the games' rules (`domain/`, without the tournament and league logs, which have routes of
their own) and of the log checks, and every `problem(...)` of the doors' shared answers. An id
built at run time (an f-string) is listed as its family with `*` for the variable part
(`trickerion.extra_card.*`). `services.contracts_gen` writes it to `contracts/rules.json`; a
drift test (tests/contracts/test_rule_ids.py) fails when the code and the file differ.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

REFUSALS = (
    "services/usecases/authorize.py",
    "services/usecases/parse.py",
    "services/usecases/record.py",
    "services/usecases/refusal.py",
    "services/usecases/inbox/settle.py",
)
"""Modules whose `Refusal(kind, rule, ...)` (or `cls(kind, rule, ...)`) refuse a game write."""

VIOLATIONS = ("services/usecases/plan.py", "services/usecases/check.py")
"""Modules outside `domain/` whose `RuleViolation(rule, ...)` refuse a game write."""

SHARED = (
    "services/platform/problems.py",
    "services/platform/limits.py",
    "services/doors/asgi/http_errors.py",
)
"""Modules whose `problem(status, rule, ...)` answer any route (limits, faults)."""

OTHER_LOGS = ("tournament", "league", "stream.py")
"""`domain/` packages of other logs (their own routes) and their shared fold skeleton, left out."""

STATUS_OF_KIND = {"unauthorized": 401, "forbidden": 403, "conflict": 409}
STATUS_OF_RULE = {"body.too_large": 413}


@dataclass(frozen=True, slots=True, order=True)
class RuleId:
    """One rule id: `rule` (`*` marks a part built at run time), its HTTP `status`, and the
    repository-relative `source` file that raises it."""

    rule: str
    status: int
    source: str


def literal_text(node: ast.expr, hole: str = "*") -> str | None:
    """A literal string, or an f-string with `hole` for its variable parts; else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(str(v.value) if isinstance(v, ast.Constant) else hole for v in node.values)
    return None


def _calls(path: Path, names: set[str]) -> list[ast.Call]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and (getattr(node.func, "id", None) or getattr(node.func, "attr", None)) in names
    ]


def _status(kind: str | None, rule: str) -> int:
    return STATUS_OF_RULE.get(rule) or STATUS_OF_KIND.get(kind or "", 422)


def catalogue(root: Path = ROOT) -> list[RuleId]:
    """Every rule id the game write route can send, sorted by id (then status, source)."""
    found: set[RuleId] = set()
    for name in REFUSALS:
        for call in _calls(root / name, {"Refusal", "cls"}):
            if len(call.args) >= 2 and (rule := literal_text(call.args[1])) is not None:
                kind = literal_text(call.args[0])
                found.add(RuleId(rule, _status(kind, rule), name))
    domain = sorted(
        p.relative_to(root).as_posix()
        for p in (root / "domain").rglob("*.py")
        if not set(OTHER_LOGS) & set(p.parts)
    )
    for name in (*domain, *VIOLATIONS):
        for call in _calls(root / name, {"RuleViolation"}):
            if call.args and (rule := literal_text(call.args[0])) is not None:
                found.add(RuleId(rule, 422, name))
    for name in SHARED:
        for call in _calls(root / name, {"problem"}):
            first = call.args[0] if call.args else None
            status = first.value if isinstance(first, ast.Constant) else None
            rule = literal_text(call.args[1]) if len(call.args) >= 2 else None
            if isinstance(status, int) and rule is not None:
                found.add(RuleId(rule, status, name))
    return sorted(found)
