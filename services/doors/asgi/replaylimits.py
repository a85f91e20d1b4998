"""The HTTP side of the replay limits (`services.runtime.fairqueue`): who the
client is, the 429 / 503 answers, their OpenAPI description, and the queue's metrics.

* Client: the peer address of the request (`scope["client"]`). uvicorn replaces it with the
  X-Forwarded-For client only for a peer listed in `SCORELEDGER_TRUSTED_PROXIES`
  (`services.cli.serve.uvicorn_server`), so a client cannot name itself.
* Answers: `ReplayRefused` -> RFC 9457 problem `replay.client_limit` (429),
  `replay.queue_full` or `replay.deadline` (503), with `Retry-After` (seconds) and the limit
  named: `limit` (the setting) and `limit_value`.
* Metrics (`/metrics`, read at scrape time): `scoreledger_replay_queue_depth`,
  `scoreledger_replay_running`, `scoreledger_replay_admitted_total`,
  `scoreledger_replay_refused_total{rule}`, `scoreledger_replay_wait_seconds` (histogram of
  the time from arrival to start).
Source: issue brief (fair, bounded replay work); RFC 6585 §4; RFC 9110 §10.2.3 (Retry-After).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fastapi import Request
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

from services.platform.problems import ProblemResponse, problem, problem_responses
from services.runtime.fairqueue import WAIT_BUCKETS_S, FairQueue
from services.usecases.readmodels.errors import ReplayRefused

SETTINGS = {
    "per_client": "SCORELEDGER_REPLAY_PER_CLIENT",
    "queued": "SCORELEDGER_REPLAY_QUEUE",
    "deadline_s": "SCORELEDGER_REPLAY_DEADLINE_S",
}
"""The setting behind each limit a refusal names."""

UNKNOWN_CLIENT = "unknown"


def client_of(request: Request) -> str:
    """The client's address as the server saw it (see the module docstring)."""
    client = request.client
    return client.host if client is not None else UNKNOWN_CLIENT


def replay_responses(*others: int) -> dict[int | str, dict[str, Any]]:
    """FastAPI `responses=` of a replay-class route: `others` and the queue's 429 and 503,
    each a problem with a `Retry-After` header."""
    responses = problem_responses(*others, 429, 503)
    retry = {
        "Retry-After": {
            "description": "seconds to wait before retrying",
            "schema": {"type": "integer", "minimum": 1},
        }
    }
    responses[429] = {
        **responses[429],
        "description": "replay.client_limit: this client has SCORELEDGER_REPLAY_PER_CLIENT "
        "replays waiting or running",
        "headers": retry,
    }
    responses[503] = {
        **responses[503],
        "description": "replay.queue_full (SCORELEDGER_REPLAY_QUEUE replays wait), "
        "replay.deadline (not ready within SCORELEDGER_REPLAY_DEADLINE_S), or a storage or "
        "projection problem",
        "headers": retry,
    }
    return responses


async def replay_refused_handler(request: Request, exc: Exception) -> ProblemResponse:
    """429 / 503 with `Retry-After` for a replay the queue refused."""
    assert isinstance(exc, ReplayRefused)
    item = problem(
        exc.status,
        exc.rule,
        None,
        exc.message,
        limit=SETTINGS.get(exc.limit, exc.limit),
        limit_value=exc.value,
    )
    return ProblemResponse(item, headers={"Retry-After": str(exc.retry_after_s)})


class ReplayQueueCollector(Collector):
    """The replay queue's state as Prometheus metrics, read when scraped."""

    def __init__(self, queue: FairQueue) -> None:
        self.queue = queue

    def collect(self) -> Iterator[Metric]:
        stats = self.queue.stats()
        yield GaugeMetricFamily(
            "scoreledger_replay_queue_depth", "Replays waiting for a worker", stats.queued
        )
        yield GaugeMetricFamily(
            "scoreledger_replay_running", "Replays running on the workers", stats.running
        )
        yield CounterMetricFamily(
            "scoreledger_replay_admitted", "Replays admitted to the queue", stats.admitted
        )
        refused = CounterMetricFamily(
            "scoreledger_replay_refused",
            "Replays refused by the queue's limits (429 / 503)",
            labels=["rule"],
        )
        for rule in ("replay.client_limit", "replay.queue_full", "replay.deadline"):
            refused.add_metric([rule], stats.refused.get(rule, 0))
        yield refused
        bounds = [*(f"{b:g}" for b in WAIT_BUCKETS_S), "+Inf"]
        yield HistogramMetricFamily(
            "scoreledger_replay_wait_seconds",
            "Seconds from a replay's arrival to its start on a worker",
            buckets=list(zip(bounds, stats.wait_buckets, strict=True)),
            sum_value=stats.wait_sum_s,
        )
