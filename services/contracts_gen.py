"""Regenerate every committed contract: JSON Schemas, AsyncAPI (the inbox) and OpenAPI (HTTP).

Run `make schemas` (or `python -m services.contracts_gen`) after changing a model or a route;
the drift tests under `tests/contracts/` fail until the committed files match.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from contracts.schema import write_json_schemas

CONTRACTS = Path(__file__).resolve().parent.parent / "contracts"
GENERATED = {
    "asyncapi.yaml": "services.ingest.asyncapi",
    "openapi.json": "services.query.openapi",
}


def main() -> None:
    """Write all generated contracts under `contracts/`."""
    for path in write_json_schemas():
        print(f"wrote {path.relative_to(CONTRACTS.parent)}")
    for name, module in GENERATED.items():
        text = importlib.import_module(module).generate()
        (CONTRACTS / name).write_text(text, encoding="utf-8")
        print(f"wrote contracts/{name}")


if __name__ == "__main__":
    main()
