"""The one typed refusal of the use cases: what was refused, by which rule, at which field.

Each door maps it to its own answer: HTTP to a status and a JSON body
(`services.doors.ingest.http`), the inbox to a dead letter (`services.usecases.inbox.settle`). No HTTP status
or body lives here.

Kinds: `unauthorized` (no credential sent), `forbidden` (a wrong one), `invalid` (the input's
shape or a schema field), `rule` (a rule of the game or of the log), `conflict` (the expected
version is not the game's).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from domain.errors import RuleViolation
from services.ports.errors import VersionConflict

Kind = Literal["unauthorized", "forbidden", "invalid", "rule", "conflict"]

MESSAGE_MAX = 1200
"""Most characters of a message (it may echo input, e.g. a JSON decoder's complaint, or list
what is valid, `listing`)."""

LIST_MAX_BYTES = 1024
"""Most UTF-8 bytes of a list of valid values in a message (`listing`)."""


def bounded(text: str, limit: int = MESSAGE_MAX) -> str:
    """`text` cut to at most `limit` characters, at a word boundary (the last space before the
    limit, when there is one in its second half), with `…` when cut."""
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    space = head.rfind(" ")
    if space > limit // 2:
        head = head[:space].rstrip(",;:")
    return head + "…"


def listing(items: Sequence[str], max_bytes: int = LIST_MAX_BYTES) -> str:
    """`items` as `a, b, c`, every item whole: as many as fit in `max_bytes` UTF-8 bytes, then
    `and N more` (the cut is at an item boundary, never inside one)."""
    shown: list[str] = []
    size = 0
    for item in items:
        cost = len(item.encode()) + (2 if shown else 0)
        if size + cost > max_bytes:
            return f"{', '.join(shown)} and {len(items) - len(shown)} more"
        shown.append(item)
        size += cost
    return ", ".join(shown)


class Refusal(Exception):
    """A write refused before anything was stored.

    Attributes:
        kind: see the module docstring.
        rule: a stable id: `auth.token_required`, `auth.token_rejected`, `auth.token_format`,
            `auth.creator_key_required`, `auth.creator_key_rejected`, `body.json`,
            `body.shape`, `schema.field`, `schema.version`, `log.expected_version`, or the
            domain's rule id (`log.event_id_reused`, `trickerion.advertise.once_per_turn`...).
        field: the input field at fault, dotted (`payload.trick_id`, `seq`, `token`), or None.
        message: a sentence, at most `MESSAGE_MAX` characters.
        extras: JSON-ready details: `index` (0-based batch position of the event at fault),
            `errors` (schema errors without the input), `expected` / `actual` / `version`
            (a conflict: the event's `seq - 1`, the version the game holds, twice).
    """

    def __init__(
        self,
        kind: Kind,
        rule: str,
        message: str,
        field: str | None = None,
        extras: Mapping[str, Any] | None = None,
    ) -> None:
        self.kind: Kind = kind
        self.rule = rule
        self.field = field
        self.message = bounded(message)
        self.extras: Mapping[str, Any] = dict(extras or {})
        super().__init__(f"{rule}: {self.message}")

    def to_dict(self) -> dict[str, Any]:
        """`{"kind", "rule", "field", "message", **extras}` (what a dead letter's reason holds)."""
        return {
            "kind": self.kind,
            "rule": self.rule,
            "field": self.field,
            "message": self.message,
            **self.extras,
        }

    @classmethod
    def of_rule(cls, violation: RuleViolation, batch: bool = False) -> Refusal:
        """The refusal of a domain `RuleViolation` (kind `rule`, its rule, field and message;
        `index` when `batch` and the violation names its event)."""
        extras = {"index": violation.index} if batch and violation.index is not None else None
        return cls("rule", violation.rule, violation.message, violation.field, extras)

    @classmethod
    def of_conflict(cls, conflict: VersionConflict, batch: bool = False) -> Refusal:
        """The refusal of a `VersionConflict` (kind `conflict`, field `seq`): `expected` (the
        event's `seq - 1`), `actual` and `version` (both the version the game holds), and
        `index` when `batch` and the conflict names its event."""
        extras: dict[str, Any] = {
            "expected": conflict.expected,
            "actual": conflict.actual,
            "version": conflict.actual,
        }
        if batch and conflict.index is not None:
            extras["index"] = conflict.index
        return cls("conflict", "log.expected_version", str(conflict), "seq", extras)
