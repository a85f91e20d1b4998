"""`scoreledger serve`: one process running any mix of ingest (HTTP), the inbox consumer, the
projector and the query service, as one FastAPI app under uvicorn, assembled by the
composition root (`services.bootstrap`).

Every mix serves `/healthz`, `/readyz` and `/metrics`, so each deployment (one role per
container) and the development mix (all roles) have the same probes. The projector and the
inbox run in the app's lifespan, in its event loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import uvicorn
from fastapi import FastAPI

from services import bootstrap
from services.bootstrap import Roles
from services.platform.settings import ServiceSettings

__all__ = ["Roles", "build_app", "uvicorn_server"]


def build_app(roles: Roles, overrides: dict[str, Any] | None = None) -> FastAPI:
    """The FastAPI app for `roles`; settings come from the environment, then `overrides`
    (e.g. `{"redis_url": ...}` from the CLI or the demo)."""
    return bootstrap.build_app(roles, ServiceSettings(**(overrides or {})))


def uvicorn_server(
    app: Any,
    host: str,
    port: int,
    access_log: bool = False,
    trusted_proxies: Sequence[str] = (),
) -> uvicorn.Server:
    """A uvicorn server for `app` (an ASGI app: the FastAPI app, or it wrapped by
    `services.cli.startup.LifespanGuard`) whose logs go through the structlog set-up;
    `access_log`: one log line per request (the `access_log` setting). X-Forwarded-For and
    X-Forwarded-Proto are honoured only from a peer in `trusted_proxies` (addresses or CIDR
    networks; the `trusted_proxies` setting): none by default, where uvicorn's own default
    trusts loopback, so a local client could choose the address the replay limits count."""
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_config=None,
        lifespan="on",
        access_log=access_log,
        proxy_headers=bool(trusted_proxies),
        forwarded_allow_ips=list(trusted_proxies),
    )
    return uvicorn.Server(config)
