"""The one typed refusal of the use cases: what was refused, by which rule, at which field.

Each door maps it to its own answer: HTTP to a status and a JSON body
(`services.ingest.http`), the inbox to a dead letter (`services.ingest.inbox`). No HTTP status
or body lives here.

Kinds: `unauthorized` (no credential sent), `forbidden` (a wrong one), `invalid` (the input's
shape or a schema field), `rule` (a rule of the game or of the log), `conflict` (the expected
version is not the game's).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from domain.errors import RuleViolation
from services.ports.errors import VersionConflict

Kind = Literal["unauthorized", "forbidden", "invalid", "rule", "conflict"]

MESSAGE_MAX = 300
"""Most characters of a message (it may echo input, e.g. a JSON decoder's complaint)."""


def bounded(text: str, limit: int = MESSAGE_MAX) -> str:
    """`text` cut to `limit` characters (with `…` when cut)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


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
        extras: JSON-ready details: `index` (batch position), `detail` (schema errors without
            the input), `expected` / `actual` (versions of a conflict).
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
    def of_rule(cls, violation: RuleViolation) -> Refusal:
        """The refusal of a domain `RuleViolation` (kind `rule`, its rule, field and message)."""
        return cls("rule", violation.rule, violation.message, violation.field)

    @classmethod
    def of_conflict(cls, conflict: VersionConflict) -> Refusal:
        """The refusal of a `VersionConflict` (kind `conflict`, field `seq`)."""
        return cls(
            "conflict",
            "log.expected_version",
            str(conflict),
            "seq",
            {"expected": conflict.expected, "actual": conflict.actual},
        )
