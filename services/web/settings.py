"""Settings of the web scoreboard (pydantic-settings, `SCORELEDGER_` prefix like the rest).

* `SCORELEDGER_INGEST_URL`: where ingest listens when it runs apart from the query service
  (a split deployment). Set, the query service forwards the page's writes
  (`POST /games/{id}/events`: voids and corrections) there, so the page needs one origin and
  no CORS. Unset, writes go to the same origin (ingest mounted in the same process).
* `SCORELEDGER_STALE_AFTER_S`: a game in progress with no event for this long is listed as
  `stale` (the games list; default 30 minutes).
* `SCORELEDGER_FORWARD_MAX_BYTES`: the largest write body forwarded (bigger: 413).
"""

from __future__ import annotations

from pydantic import AnyHttpUrl, Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class WebSettings(BaseSettings):
    """The scoreboard's settings (see the module docstring)."""

    model_config = SettingsConfigDict(env_prefix="SCORELEDGER_", extra="ignore")

    ingest_url: AnyHttpUrl | None = Field(
        default=None, description="ingest's base URL for forwarded writes (split deployment)"
    )
    stale_after_s: float = Field(default=1800.0, gt=0, le=30 * 86400)
    forward_max_bytes: int = Field(default=1_000_000, ge=1024, le=16_000_000)
    forward_timeout_s: float = Field(default=10.0, gt=0, le=120)
