"""The read models' errors (re-exported by `reads`); picklable, as replays raise them in a
worker process (`offloop`)."""

from __future__ import annotations

from services.runtime.fairqueue import ReplayRefused

__all__ = ["NotFound", "Pending", "ReplayRefused"]


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
