"""The read models' errors (re-exported by `reads`); picklable, as replays raise them in a
worker process (`offloop`)."""

from __future__ import annotations


class NotFound(LookupError):
    """No such game, seq, player or event: `error` code, `message`, the `field` at fault."""

    def __init__(self, error: str, message: str, field: str) -> None:
        super().__init__(message)
        self.error = error
        self.message = message
        self.field = field

    def __reduce__(self) -> tuple[type[NotFound], tuple[str, str, str]]:
        return (NotFound, (self.error, self.message, self.field))


class Pending(Exception):
    """The game is stored but the projector has not written its projection yet."""


class ReplayRefused(Exception):
    """A replay-class read refused by the replay queue's bounds (`fairqueue.FairQueue`).

    Attributes:
        status: 429 (this client's own limit) or 503 (the queue is full, or the deadline
            passed).
        rule: `replay.client_limit`, `replay.queue_full` or `replay.deadline`.
        limit / value: the setting at fault (`per_client`, `queued`, `deadline_s`) and its value.
        message: one sentence for the problem's detail.
        retry_after_s: whole seconds a client should wait before it retries, at least 1.
    """

    def __init__(
        self, status: int, rule: str, limit: str, value: float, message: str, retry_after_s: int
    ) -> None:
        super().__init__(message)
        self.status = status
        self.rule = rule
        self.limit = limit
        self.value = value
        self.message = message
        self.retry_after_s = retry_after_s
