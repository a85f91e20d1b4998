"""Test-side reading of a `text/event-stream` body (httpx streaming), enough to check fields."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx


@dataclass
class Event:
    event: str | None
    id: str | None
    data: str

    def json(self) -> Any:
        return json.loads(self.data)


async def events(response: httpx.Response) -> AsyncIterator[Event]:
    """Yield each dispatched event (comments and keep-alives skipped)."""
    fields: dict[str, list[str]] = {}
    async for line in response.aiter_lines():
        if line == "":
            if "data" in fields:
                yield Event(
                    fields.get("event", [None])[-1],
                    fields.get("id", [None])[-1],
                    "\n".join(fields["data"]),
                )
            fields = {}
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        fields.setdefault(name, []).append(value.removeprefix(" "))
