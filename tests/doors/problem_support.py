"""The RFC 9457 problem an HTTP door answers a refusal with, checked whole
(docs/decisions/0010-one-error-style.md)."""

from __future__ import annotations

import httpx


def assert_problem(
    response: httpx.Response, status: int, title: str, rule: str, field: str, detail: str
) -> None:
    """`response` is `status` with `application/problem+json` and exactly these members: the
    type `urn:scoreledger:rule:<rule>`, `title`, `status`, `rule`, `field` and `detail`."""
    assert response.status_code == status
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json() == {
        "type": f"urn:scoreledger:rule:{rule}",
        "title": title,
        "status": status,
        "rule": rule,
        "field": field,
        "detail": detail,
    }
