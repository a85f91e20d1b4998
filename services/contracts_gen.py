"""Regenerate every committed contract: JSON Schemas, AsyncAPI (the inbox) and OpenAPI (HTTP).

Run `make schemas` (or `python -m services.contracts_gen`) after changing a model or a route;
the drift tests under `tests/contracts/` fail until the committed files match.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from contracts.schema import write_json_schemas

CONTRACTS = Path(__file__).resolve().parent.parent / "contracts"


def asyncapi_yaml() -> str:
    """`contracts/asyncapi.yaml`: the inbox app built on memory ports, documented by FastStream
    (`services.doors.ingest.asyncapi.document`)."""
    from services.bootstrap import inbox_document_app
    from services.doors.ingest.asyncapi import document, document_settings

    return document(inbox_document_app(document_settings()))


def openapi_json() -> str:
    """`contracts/openapi.json`: the full development app's document. Building the app opens no
    connection (Redis is only touched in its lifespan); the defaults, not the environment, so
    the file does not depend on who generates it."""
    from services.bootstrap import Roles, build_app
    from services.doors.query.openapi import document_text
    from services.platform.settings import ServiceSettings

    return document_text(build_app(Roles(inbox=False), ServiceSettings(_env_file=None)))


def rules_json() -> str:
    """`contracts/rules.json`: every rule id the game write route can send, read from the code
    (`services.rules.catalogue`)."""
    from services.rules.catalogue import rules_json as text

    return text()


GENERATED: dict[str, Callable[[], str]] = {
    "asyncapi.yaml": asyncapi_yaml,
    "openapi.json": openapi_json,
    "rules.json": rules_json,
}


def main() -> None:
    """Write all generated contracts under `contracts/`."""
    for path in write_json_schemas():
        print(f"wrote {path.relative_to(CONTRACTS.parent)}")
    for name, generate in GENERATED.items():
        (CONTRACTS / name).write_text(generate(), encoding="utf-8")
        print(f"wrote contracts/{name}")


if __name__ == "__main__":
    main()
