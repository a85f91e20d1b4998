"""The committed HTTP contract `contracts/openapi.json`, generated from the app itself.

`generate()` builds the full development app (`scoreledger serve` with every role: query,
ingest, live push, web scoreboard) and dumps `app.openapi()`; nothing is hand-written.
Regenerate with `make schemas` (`python -m services.contracts_gen`); the drift test
`tests/query/test_openapi_drift.py` fails while the committed file differs.
Source: research/anchors.md §4.2 (contracts), §1.6 lesson 9 (drift tests).
"""

from __future__ import annotations

import json
from pathlib import Path

COMMITTED = Path(__file__).resolve().parents[2] / "contracts" / "openapi.json"


def generate() -> str:
    """The OpenAPI document of every HTTP route, as stable JSON text (2-space indent, newline)."""
    from services.cli.serve import Roles, build_app

    # Building the app opens no connection: Redis is only touched in its lifespan.
    document = build_app(Roles(inbox=False)).openapi()  # the inbox has no HTTP routes
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def write(path: Path = COMMITTED) -> Path:
    """Write `generate()` to `path` (default `contracts/openapi.json`)."""
    path.write_text(generate(), encoding="utf-8")
    return path


if __name__ == "__main__":  # pragma: no cover
    print(f"wrote {write()}")
