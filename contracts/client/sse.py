"""The live standings stream (`GET /games/{game_id}/live`, `text/event-stream`) as typed frames.

Each `standings` event's data is `{"change": {shard, entry_id, game_id, seq} | null,
"standings": <standings body>}`; the first frame of a connection carries the full body of
`GET /games/{id}/standings`, later ones `"compact": true` (players without labels, non-zero
categories only). The SSE `id` is the change's entry id: reconnecting with it as
`Last-Event-ID` sends the current standings once if the game changed since (else a
`: resumed` comment), then every new change. Source: WHATWG HTML §9.2 (event stream format).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

__all__ = ["StandingsFrame", "parse_frames"]


@dataclass(frozen=True, slots=True)
class StandingsFrame:
    """One `standings` event.

    Attributes:
        id: the SSE id (the change's stream entry id, `ms-seq`); resume with it.
        seq: the game's seq the standings reflect (`standings.seq`).
        compact: True for a later frame (players without labels), False for a full body.
        change: `{shard, entry_id, game_id, seq}`, or None in a connection's first frame.
        standings: the standings body (dict), or None when the projection is gone.
    """

    id: str | None
    seq: int | None
    compact: bool
    change: dict[str, Any] | None
    standings: dict[str, Any] | None


def parse_frames(lines: Iterable[str]) -> Iterator[StandingsFrame]:
    """The `standings` frames of an event stream given line by line (without line ends).

    Comments (`: ping`, `: resumed`) and other event names are skipped; `retry` is ignored.
    Raises: ValueError if a `standings` frame's data is not a JSON object.
    """
    event, last_id = "message", None
    data: list[str] = []
    for line in lines:
        if line == "":
            if data and event == "standings":
                yield _frame(last_id, "\n".join(data))
            event, data = "message", []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "event":
            event = value
        elif name == "data":
            data.append(value)
        elif name == "id":
            last_id = value


def _frame(frame_id: str | None, text: str) -> StandingsFrame:
    body = json.loads(text)
    if not isinstance(body, dict):
        raise ValueError("a standings frame's data is not a JSON object")
    standings = body.get("standings")
    seq = standings.get("seq") if isinstance(standings, dict) else None
    return StandingsFrame(
        id=frame_id,
        seq=seq if isinstance(seq, int) else None,
        compact=bool(body.get("compact", False)),
        change=body.get("change"),
        standings=standings if isinstance(standings, dict) else None,
    )
