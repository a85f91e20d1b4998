"""The committed AsyncAPI document passes the AsyncAPI Initiative's own parser (@asyncapi/parser,
pinned in tests/contracts/asyncapi_parser/package.json, installed by `make test`), the one
integrators' tooling (generator, Studio, CLI) runs first (docs/decisions/0019-hostile-input-at-every-door.md).

The pydantic-asyncapi models in test_published_contracts.py check the document's structure; the
parser also validates every schema against AsyncAPI's Schema Object, which they do not (it
found pydantic's OpenAPI-style `discriminator` objects, refused by AsyncAPI 3.0).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.node

ROOT = Path(__file__).resolve().parents[2]
TOOL = Path(__file__).parent / "asyncapi_parser"
DOCUMENT = ROOT / "contracts" / "asyncapi.yaml"


def parse(document: Path) -> tuple[int, list[dict[str, Any]]]:
    """Run the parser on `document`: (exit code, its JSON lines). Fails, never skips, when
    Node.js or the installed parser is missing."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not installed: the AsyncAPI parser needs Node.js (make system-deps)")
    if not (TOOL / "node_modules" / "@asyncapi" / "parser").exists():
        pytest.fail(f"@asyncapi/parser missing: npm ci --prefix {TOOL.relative_to(ROOT)}")
    done = subprocess.run(
        [node, str(TOOL / "check.mjs"), str(document)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return done.returncode, lines


def test_committed_asyncapi_passes_the_asyncapi_parser() -> None:
    code, lines = parse(DOCUMENT)
    errors = [line for line in lines if line.get("severity") == 0]
    assert code == 0, errors
    assert errors == []
    (summary,) = [line for line in lines if line.get("ok")]
    assert summary["version"] == "3.0.0"
    assert set(summary["channels"]) == {
        "inbox",
        "integration-inbox",
        "deadletter",
        "tournament-stream",
        "league-stream",
    }


def test_parser_refuses_an_openapi_style_discriminator(tmp_path: Path) -> None:
    # The check can fail: the document as pydantic emits it (discriminator objects) is refused.
    import yaml

    document = yaml.safe_load(DOCUMENT.read_text(encoding="utf-8"))
    event = document["components"]["schemas"]["Event"]
    event["discriminator"] = {"propertyName": event["discriminator"]}
    broken = tmp_path / "asyncapi.yaml"
    broken.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    code, lines = parse(broken)
    assert code == 1
    assert any(line.get("severity") == 0 for line in lines)
