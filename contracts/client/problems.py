"""Typed errors of the client: an RFC 9457 problem the service answered, or a give-up.

The service answers every refusal as `application/problem+json` (see docs/clients.md):
`{"type", "title", "status", "detail", "rule", "field", "index", ...}`, where `rule` is the
stable rule id, `field` the dotted field at fault and `index` the position in a batch of the
event at fault; further members (a 409's versions) are kept in `extra`.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["GaveUp", "ProblemError", "ScoreledgerError"]


class ScoreledgerError(Exception):
    """Base class of every error this client raises."""


class ProblemError(ScoreledgerError):
    """A refusal: the service's problem object, typed.

    Attributes:
        status: the HTTP status (400-599).
        type: the problem's URI (`urn:scoreledger:rule:<rule>` or `about:blank`).
        title: the status phrase.
        detail: one sentence for this occurrence, or None.
        rule: the stable rule id (e.g. `log.expected_version`), or None.
        field: the dotted field at fault (e.g. `payload.amount`), or None.
        index: the position in the batch of the event at fault, or None.
        extra: every other member of the problem (e.g. a 409's `expected`, `actual`).
    """

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        self.status = status
        self.type = str(body.get("type", "about:blank"))
        self.title = str(body.get("title", ""))
        detail, rule, field, index = (body.get(k) for k in ("detail", "rule", "field", "index"))
        self.detail = detail if isinstance(detail, str) else None
        self.rule = rule if isinstance(rule, str) else None
        self.field = field if isinstance(field, str) else None
        self.index = index if isinstance(index, int) else None
        known = {"type", "title", "status", "detail", "rule", "field", "index"}
        self.extra = {k: v for k, v in body.items() if k not in known}
        super().__init__(f"{status} {self.rule or self.title}: {self.detail or ''}".rstrip(": "))

    @classmethod
    def from_response(cls, status: int, content: bytes) -> ProblemError:
        """The error of a non-2xx answer; a body that is not a JSON object (a proxy's HTML
        page) gives a problem with only `status` and the start of the text as `detail`."""
        try:
            body = json.loads(content)
        except ValueError:
            body = None
        if not isinstance(body, dict):
            body = {"detail": content[:200].decode("utf-8", "replace")}
        return cls(status, body)


class GaveUp(ScoreledgerError):
    """Every attempt of a request failed with a retryable fault (lost connection, timeout,
    503, 429); `last` is the last fault (a `ProblemError` or an `httpx.TransportError`)."""

    def __init__(self, attempts: int, last: Exception) -> None:
        self.attempts = attempts
        self.last = last
        super().__init__(f"gave up after {attempts} attempts: {last!r}")
