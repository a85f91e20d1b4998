"""Field declarations more than one settings group uses: the byte bound of a folded-game
cache (`game_cache_bytes`) and the lists of names one environment variable gives as text
(`IntegrationNames`, `ProxyNetworks`)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field
from pydantic_settings import NoDecode

from services.platform.settings.checks import integration_names, proxy_networks

MIB = 1024 * 1024


def game_cache_bytes(bound_of: str) -> Any:
    """The `Field` of a cache of folded games bounded in bytes (services/runtime/sizedcache.py):
    256 MiB by default, at least 1 MiB; `bound_of` names the cache in the description (the
    configuration reference prints it). `Any`, as `Field` itself is typed, so the annotation of
    the attribute it is assigned to stays the field's type."""
    return Field(
        default=256 * MIB,
        ge=MIB,
        description=f"bound of {bound_of} (bytes, estimated per game: "
        "services/runtime/sizedcache.py); least recently used games are evicted past it",
    )


# Lists of names in one environment variable: taken as text (`NoDecode`: not JSON), then
# split and checked by the function, which raises ValueError for a wrong item.
IntegrationNames = Annotated[tuple[str, ...], NoDecode, BeforeValidator(integration_names)]
"""`IngestSettings.inbox_integrations` (`integration_names`)."""

ProxyNetworks = Annotated[tuple[str, ...], NoDecode, BeforeValidator(proxy_networks)]
"""`QuerySettings.trusted_proxies` (`proxy_networks`)."""
