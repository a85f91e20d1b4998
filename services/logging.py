"""structlog set-up: JSON when not on a terminal (or when asked), console otherwise.

Bind `game_id`, `event_id` and `seq` with `structlog.contextvars.bound_contextvars` where known.
Source: research/anchors.md §4.2 (structlog), research/tech.md §1.10.
"""

from __future__ import annotations

import logging
import sys

import structlog


def configure_logging(log_format: str = "auto", level: str = "INFO") -> None:
    """Configure structlog and route stdlib logging (uvicorn, faststream) through it."""
    json_output = log_format == "json" or (log_format == "auto" and not sys.stderr.isatty())
    shared: list[structlog.types.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer() if json_output else structlog.dev.ConsoleRenderer()
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
            *([structlog.processors.dict_tracebacks] if json_output else []),
            renderer,
        ],
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
