"""A typed, synchronous HTTP client of scoreledger (httpx), on the contracts' event models.

* `new_write_token()` chooses a game's write token; the request that creates the game sends it
  (`Authorization: Bearer`), so a lost 201 is retried with the same token.
* `Client.send(outbox)` posts the outbox's kept bytes in batches and retries a lost response,
  a timeout, a 503 or a 429 with the same bytes: the service answers an already stored event
  `duplicate: true`, which counts as stored.
* `Client.follow(game_id)` yields the live standings frames and resumes with `Last-Event-ID`
  after a dropped connection.
* Refusals raise `ProblemError` (status, rule id, field, index).
See docs/clients.md.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx

from contracts.client.outbox import Outbox
from contracts.client.problems import GaveUp, ProblemError
from contracts.client.sse import StandingsFrame, parse_frames

__all__ = ["Appended", "AppendedEvent", "Client", "new_write_token"]

RETRY_STATUSES = frozenset({429, 502, 503, 504})
"""Answers after which the same request is sent again (the service stored nothing)."""
MAX_RETRY_AFTER_S = 30.0
"""Longest wait a `Retry-After` may ask of this client."""


def new_write_token() -> str:
    """A new write token: 43 URL-safe characters (the service asks for 32 or more)."""
    return secrets.token_urlsafe(32)


@dataclass(frozen=True, slots=True)
class AppendedEvent:
    """One event of a 201: its id, its seq, and whether it was already stored."""

    event_id: str
    seq: int
    duplicate: bool


@dataclass(frozen=True, slots=True)
class Appended:
    """The 201 of an append: the events in order, the game's version after it, and the
    generated `write_token` when the request created the game without choosing one."""

    events: tuple[AppendedEvent, ...]
    version: int
    write_token: str | None

    @classmethod
    def from_json(cls, body: dict[str, Any]) -> Appended:
        """The typed 201 body `{"appended": [{event_id, seq, duplicate}], "version",
        "write_token"}`. Raises: KeyError / TypeError on another shape."""
        events = tuple(
            AppendedEvent(str(e["event_id"]), int(e["seq"]), bool(e["duplicate"]))
            for e in body["appended"]
        )
        token = body.get("write_token")
        return cls(events, int(body["version"]), token if isinstance(token, str) else None)


class Client:
    """scoreledger over HTTP.

    Args:
        base_url: the service's root, e.g. `http://127.0.0.1:8000`.
        write_token: the game's write token (`new_write_token()` to create a game with it).
        attempts: most attempts of one request (1 = no retry).
        backoff_s: the first wait between attempts (doubled each time, capped at 5 s) unless
            the answer's `Retry-After` says otherwise.
        transport: an httpx transport (tests inject faults here); None: httpx's own.
        timeout_s: connect/read timeout of a request (a live stream's read waits longer).
        sleep: the wait function (`time.sleep`).
    """

    def __init__(
        self,
        base_url: str,
        write_token: str | None = None,
        *,
        attempts: int = 6,
        backoff_s: float = 0.2,
        transport: httpx.BaseTransport | None = None,
        timeout_s: float = 10.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if attempts < 1:
            raise ValueError("attempts must be at least 1")
        self.write_token = write_token
        self.attempts = attempts
        self.backoff_s = backoff_s
        self.sleep = sleep
        self.http = httpx.Client(
            base_url=base_url, transport=transport, timeout=httpx.Timeout(timeout_s)
        )

    def close(self) -> None:
        """Close the connections."""
        self.http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writes ------------------------------------------------------------------------------

    def append(self, game_id: str, body: bytes, *, dry_run: bool = False) -> Appended:
        """POST `body` (one event or a JSON array of 1..1000 events, sent as these exact
        bytes on every attempt) to `/games/{game_id}/events`.

        `dry_run`: adds `?dry_run=true` (the service answers as the write would, storing
        nothing; a service without dry runs ignores it, see docs/clients.md).
        Returns: the typed 201 (duplicates included); a generated `write_token` is kept.
        Raises: ProblemError on a refusal (4xx, or a 5xx other than 502-504); GaveUp when
        every attempt failed with a retryable fault.
        """
        headers = {"content-type": "application/json"}
        if self.write_token:
            headers["authorization"] = f"Bearer {self.write_token}"
        params = {"dry_run": "true"} if dry_run else None
        path = f"/games/{quote(game_id, safe='')}/events"
        answer = self._request("POST", path, content=body, headers=headers, params=params)
        appended = Appended.from_json(answer.json())
        if appended.write_token and not self.write_token:
            self.write_token = appended.write_token
        return appended

    def send(self, outbox: Outbox, batch_size: int = 100) -> list[Appended]:
        """Post every pending event of `outbox` in batches of `batch_size`, acknowledging each
        batch once answered (stored or `duplicate`). Returns: the 201 of each batch.
        Raises: as `append`; the refused batch and later ones stay in the outbox.
        """
        answers = []
        while len(outbox):
            ids, body = outbox.batch(batch_size)
            answers.append(self.append(outbox.game_id, body))
            outbox.acknowledge(ids)
        return answers

    # -- reads -------------------------------------------------------------------------------

    def standings(self, game_id: str) -> dict[str, Any]:
        """The body of `GET /games/{game_id}/standings` (see the `StandingsResponse` schema of
        contracts/openapi.json). Raises: ProblemError (404 `game_not_found`, ...); GaveUp."""
        body: dict[str, Any] = self._request(
            "GET", f"/games/{quote(game_id, safe='')}/standings"
        ).json()
        return body

    def follow(
        self, game_id: str, last_event_id: str | None = None, *, read_timeout_s: float = 60.0
    ) -> Iterator[StandingsFrame]:
        """The live standings of `game_id`, frame by frame, for as long as the caller reads.

        A dropped connection is reopened with `Last-Event-ID` = the last frame's id (the
        service then sends the current standings once if it missed a change); a caller that
        stops and comes back passes its last `frame.id` as `last_event_id`. Waits between
        reconnections as `append` does between attempts.
        Raises: ProblemError (404 before any frame: the game has no events); GaveUp after
        `attempts` connections in a row that gave no frame.
        """
        path = f"/games/{quote(game_id, safe='')}/live"
        failures = 0
        while True:
            headers = {"accept": "text/event-stream"}
            if last_event_id:
                headers["last-event-id"] = last_event_id
            timeout = httpx.Timeout(self.http.timeout.connect, read=read_timeout_s)
            got = False
            try:
                with self.http.stream("GET", path, headers=headers, timeout=timeout) as answer:
                    if answer.status_code != 200:
                        answer.read()
                        error = ProblemError.from_response(answer.status_code, answer.content)
                        if answer.status_code not in RETRY_STATUSES:
                            raise error
                        raise _Retry(error, answer.headers.get("retry-after"))
                    for frame in parse_frames(answer.iter_lines()):
                        got = True
                        last_event_id = frame.id or last_event_id
                        yield frame
            except (httpx.TransportError, _Retry) as exc:
                fault: Exception = exc.error if isinstance(exc, _Retry) else exc
                after = exc.retry_after if isinstance(exc, _Retry) else None
            else:  # the server ended the stream (e.g. its storage is down): reconnect
                fault, after = ConnectionError("the stream ended"), None
            failures = 0 if got else failures + 1
            if failures >= self.attempts:
                raise GaveUp(failures, fault)
            self.sleep(self._wait(failures, after))

    # -- the retry loop ----------------------------------------------------------------------

    def _request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        last: Exception | None = None
        for attempt in range(1, self.attempts + 1):
            after = None
            try:
                answer = self.http.request(method, path, **kwargs)
            except httpx.TransportError as exc:  # lost: sent or not, the resend is the same
                last = exc
            else:
                if answer.is_success:
                    return answer
                error = ProblemError.from_response(answer.status_code, answer.content)
                if answer.status_code not in RETRY_STATUSES:
                    raise error
                last, after = error, answer.headers.get("retry-after")
            if attempt < self.attempts:
                self.sleep(self._wait(attempt, after))
        assert last is not None
        raise GaveUp(self.attempts, last)

    def _wait(self, attempt: int, retry_after: str | None) -> float:
        """Seconds before attempt `attempt + 1`: `Retry-After` (seconds) when given, else
        exponential backoff; both capped."""
        if retry_after is not None:
            try:
                return min(max(float(retry_after), 0.0), MAX_RETRY_AFTER_S)
            except ValueError:
                pass
        return float(min(self.backoff_s * 2 ** max(attempt - 1, 0), 5.0))


class _Retry(Exception):
    def __init__(self, error: ProblemError, retry_after: str | None) -> None:
        self.error = error
        self.retry_after = retry_after
