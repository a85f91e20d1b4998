"""structlog set-up: JSON when not on a terminal (or when asked), console otherwise.

Bind `game_id`, `event_id` and `seq` with `structlog.contextvars.bound_contextvars` where known.
Log lines are bounded (docs/decisions/0019-hostile-input-at-every-door.md: one line carried a whole batch's locals, 74 MB): tracebacks
never show local variables, at most `MAX_FRAMES` frames, and every string field (the event
too) is cut to `MAX_FIELD_CHARS`; a field whose key names a secret (`token`, `password`, ...)
is replaced by `[redacted]`.
Source: docs/decisions/0018-observability-at-the-edges.md (structlog), docs/decisions/0018-observability-at-the-edges.md; docs/decisions/0019-hostile-input-at-every-door.md.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import MutableMapping
from typing import Any

import structlog
from structlog.tracebacks import ExceptionDictTransformer

MAX_FIELD_CHARS = 500
"""Most characters of any string field of a log line."""
MAX_FRAMES = 20
SECRET_KEYS = ("token", "password", "secret", "creator_key", "authorization")


def clip(text: str, limit: int = MAX_FIELD_CHARS) -> str:
    """`text` cut to `limit` characters, saying how long it was when cut."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def bound_fields(
    logger: Any, method: str, event_dict: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    """structlog processor: secrets redacted, strings (and reprs of other values) clipped."""
    for key, value in list(event_dict.items()):
        if any(secret in key.lower() for secret in SECRET_KEYS):
            event_dict[key] = "[redacted]"
        elif isinstance(value, str):
            event_dict[key] = clip(value)
        elif isinstance(value, (bytes, bytearray, list, tuple, dict, set)):
            text = repr(value)
            if len(text) > MAX_FIELD_CHARS:
                event_dict[key] = clip(text)
    return event_dict


def configure_logging(log_format: str = "auto", level: str = "INFO") -> None:
    """Configure structlog and route stdlib logging (uvicorn, faststream) through it."""
    json_output = log_format == "json" or (log_format == "auto" and not sys.stderr.isatty())
    shared: list[structlog.types.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        bound_fields,
    ]
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer()
        if json_output
        else structlog.dev.ConsoleRenderer(
            exception_formatter=structlog.dev.RichTracebackFormatter(
                show_locals=False, max_frames=MAX_FRAMES
            )
        )
    )
    tracebacks = structlog.processors.ExceptionRenderer(
        ExceptionDictTransformer(show_locals=False, max_frames=MAX_FRAMES)
    )
    structlog.configure(
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=shared,
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            *([tracebacks] if json_output else []),
            renderer,
        ],
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
