"""A typed Python client of scoreledger on the contracts' models (httpx; imports only
`contracts`, httpx and the standard library). See docs/clients.md and `example.py`."""

from contracts.client.client import Appended, AppendedEvent, Client, new_write_token
from contracts.client.outbox import MAX_BATCH, Outbox
from contracts.client.problems import GaveUp, ProblemError, ScoreledgerError
from contracts.client.sse import StandingsFrame, parse_frames

__all__ = [
    "MAX_BATCH",
    "Appended",
    "AppendedEvent",
    "Client",
    "GaveUp",
    "Outbox",
    "ProblemError",
    "ScoreledgerError",
    "StandingsFrame",
    "new_write_token",
    "parse_frames",
]
