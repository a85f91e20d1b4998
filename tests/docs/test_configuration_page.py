"""docs/operating/configuration.md names every setting a process reads: each field of each
settings class (pydantic-settings, prefix `SCORELEDGER_`) by its whole variable name.
Finding: five settings (`SCORELEDGER_LOG_LEVEL` among them) were on no page and thirteen more
only on feature pages, so an operator reading the one table did not learn of them."""

from __future__ import annotations

import inspect
from pathlib import Path

from pydantic_settings import BaseSettings

import services.platform.settings as settings

PAGE = Path(__file__).resolve().parents[2] / "docs" / "operating" / "configuration.md"


def _variables() -> set[str]:
    names = set()
    for _, cls in inspect.getmembers(settings, inspect.isclass):
        if issubclass(cls, BaseSettings) and cls is not BaseSettings:
            prefix = str(cls.model_config.get("env_prefix", ""))
            names |= {f"{prefix}{field}".upper() for field in cls.model_fields}
    return names


def test_every_setting_is_in_the_configuration_table() -> None:
    variables = _variables()
    assert "SCORELEDGER_REDIS_URL" in variables
    assert len(variables) > 50
    page = PAGE.read_text(encoding="utf-8")
    missing = sorted(v for v in variables if f"`{v}`" not in page)
    assert missing == [], f"not in {PAGE.name}: {missing}"
