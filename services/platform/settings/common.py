"""The settings every service shares (`CommonSettings`): the Redis URL and its connection,
the role's ACL user, TLS, the archive."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from services.platform.settings.checks import redis_url_checked


class CommonSettings(BaseSettings):
    """Settings every service shares. `redis_url` is checked up front (`redis_url_checked`)."""

    model_config = SettingsConfigDict(env_prefix="SCORELEDGER_", extra="ignore")

    redis_url: str = Field(  # type: ignore[pydantic-alias]  # two env names, by design
        default="redis://127.0.0.1:6379/0",
        validation_alias=AliasChoices("SCORELEDGER_REDIS_URL", "REDIS_URL"),
    )
    shards: int = Field(
        default=16, ge=1, le=1024, description="feed streams; fixed for a deployment"
    )
    max_body_bytes: int = Field(
        default=1_048_576,
        ge=1024,
        le=64 * 1_048_576,
        description="largest HTTP request body (bytes); larger ones get 413 before parsing",
    )
    log_format: Literal["auto", "json", "console"] = "auto"
    log_level: str = "INFO"
    # Least-privilege Redis (docs/decisions/0019-hostile-input-at-every-door.md): this role's ACL user (deploy/users.acl.template) and
    # its password, from a Secret, never a ConfigMap or the URL. TLS: a `rediss://` URL.
    redis_username: str | None = Field(default=None, max_length=64)
    redis_password: SecretStr | None = None
    redis_tls_ca_file: str | None = Field(default=None, description="CA bundle for rediss://")

    # Redis client (services/adapters/redis/connect.py); a `redis+cluster://` URL also sets cluster.
    redis_cluster: bool = Field(default=False, description="Redis Cluster client (RedisCluster)")
    redis_max_connections: int = Field(
        default=64, ge=1, le=10_000, description="per Redis node; more requests wait, not fail"
    )
    redis_pool_timeout_s: float = Field(
        default=5.0, gt=0, description="longest wait for a free connection, then ConnectionError"
    )
    redis_socket_timeout_s: float = Field(default=5.0, gt=0, description="per command reply")
    redis_connect_timeout_s: float = Field(default=2.0, gt=0)
    redis_retries: int = Field(
        default=5, ge=0, le=50, description="retries (exponential backoff) on connection errors"
    )

    # The archive of sealed games (services/archive/ports/cold.py): unset, nothing is archived.
    archive_url: SecretStr | None = Field(
        default=None,
        description="where sealed games go: `postgresql://user:pass@host/db` or "
        "`file:///absolute/dir`; unset: no archiving (every game stays in Redis)",
    )
    archive_after_s: float = Field(
        default=86_400.0,
        ge=0,
        le=365 * 86400,
        description="a final game with no event for this long is sealed into the archive",
    )
    archive_every_s: float = Field(
        default=30.0, gt=0, le=86400, description="least time between two sealing passes"
    )
    archive_batch: int = Field(
        default=100, ge=1, le=10_000, description="games sealed at most per sealing pass"
    )

    @field_validator("archive_url")
    @classmethod
    def _archive_scheme(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None or not value.get_secret_value().strip():
            return None
        url = value.get_secret_value()
        if url.startswith(("postgresql://", "postgres://")):
            return value
        if url.startswith("file:///"):
            return value
        raise ValueError("archive_url: expected postgresql://... or file:///absolute/dir")

    @field_validator("redis_url")
    @classmethod
    def _redis_url(cls, value: str) -> str:
        return redis_url_checked(value)

    def redis_options(self) -> dict[str, Any]:
        """Keyword arguments for `Redis.from_url(redis_url, **...)` and FastStream's
        `RedisBroker(redis_url, **...)`: the ACL user and password (over any in the URL) and
        the TLS CA bundle, each only when set."""
        options: dict[str, Any] = {}
        if self.redis_username is not None:
            options["username"] = self.redis_username
        if self.redis_password is not None:
            options["password"] = self.redis_password.get_secret_value()
        if self.redis_tls_ca_file is not None:
            options["ssl_ca_certs"] = self.redis_tls_ca_file
        return options
