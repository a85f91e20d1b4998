"""Configuration (pydantic-settings). One settings object per service, built in the service's
composition root and passed down; nothing else reads the environment.

Environment variables use the `SCORELEDGER_` prefix (e.g. `SCORELEDGER_REDIS_URL`); plain
`REDIS_URL` is honoured too, as the README and the test fixture use it.

The groups, one module each: `checks` (the checks of values that settings parse: integration
names, Redis URLs, proxy networks), `common` (what every service shares: Redis, the archive),
`ingest`, `query`, and `workers` (the projector and the webhooks role). `ServiceSettings`, here,
is all of them in one object; this package hands every name on, so
`from services.platform.settings import ServiceSettings` keeps working.
"""

from __future__ import annotations

from services.platform.settings.checks import INTEGRATION_NAME as INTEGRATION_NAME
from services.platform.settings.checks import MAX_INTEGRATIONS as MAX_INTEGRATIONS
from services.platform.settings.checks import REDIS_URL_OPTIONS as REDIS_URL_OPTIONS
from services.platform.settings.checks import REDIS_URL_SCHEMES as REDIS_URL_SCHEMES
from services.platform.settings.checks import integration_names as integration_names
from services.platform.settings.checks import proxy_networks as proxy_networks
from services.platform.settings.checks import redis_url_checked as redis_url_checked
from services.platform.settings.common import CommonSettings as CommonSettings
from services.platform.settings.ingest import IngestSettings as IngestSettings
from services.platform.settings.query import QuerySettings as QuerySettings
from services.platform.settings.workers import ProjectorSettings as ProjectorSettings
from services.platform.settings.workers import WebhookSettings as WebhookSettings


class ServiceSettings(IngestSettings, ProjectorSettings, QuerySettings, WebhookSettings):
    """Every role's settings in one object: what the composition root (`services.bootstrap`)
    reads once per process."""
