"""openapi-python-client (0.29.1, installed for this test only, in a throwaway virtual
environment) generates a client from contracts/openapi.json without a duplicate model.

With the problem shape written inline on each route's 4xx answers, the generator named one
model per route and status, found them equal, and dropped those answers ("Attempted to
generate duplicate models", so `parsed` was None for them); the shape is now one shared
OpenAPI component (`Problem`). The generated client is then run: its append route parses a
401, 403, 409 and 413 problem into the generated `Problem` model (it gave `parsed=None`), and
the live frames have models of their own (`StandingsFrame`, `TournamentFrame`).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GENERATOR = "openapi-python-client==0.29.1"
PARSE = """
import httpx
from scoreledger_client import Client
from scoreledger_client.api.ingest.post_events import _parse_response
from scoreledger_client.models.problem import Problem

problem = {"type": "urn:scoreledger:rule:log.expected_version", "title": "Conflict",
           "detail": "stale", "rule": "log.expected_version", "index": 4, "expected": 8,
           "actual": 2, "version": 2}
for status in (401, 403, 409, 413):
    answer = httpx.Response(status, json={**problem, "status": status})
    parsed = _parse_response(client=Client(base_url="http://x"), response=answer)
    assert isinstance(parsed, Problem), (status, parsed)
    assert (parsed.rule, parsed.status) == ("log.expected_version", status)
print("parsed")
"""
"""Run in the throwaway environment (the generator's own dependencies: httpx, attrs)."""


@pytest.mark.slow
def test_openapi_python_client_generates_without_duplicate_models(tmp_path: Path) -> None:
    env = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(env)], check=True, timeout=120)
    pip = subprocess.run(
        [str(env / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check", GENERATOR],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if pip.returncode != 0:
        pytest.fail(f"could not install {GENERATOR}: {pip.stderr[-500:]}")
    done = subprocess.run(
        [
            str(env / "bin" / "openapi-python-client"),
            "generate",
            "--meta",
            "none",
            "--path",
            str(ROOT / "contracts" / "openapi.json"),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    output = done.stdout + done.stderr
    if done.returncode != 0:
        pytest.fail(f"the generator failed: {output[-2000:]}")
    duplicates = [line for line in output.splitlines() if "duplicate models" in line]
    assert duplicates == []
    models = tmp_path / "scoreledger_client" / "models"
    for model in ("problem", "standings_frame", "compact_standings_frame", "tournament_frame"):
        assert (models / f"{model}.py").exists(), model
    run = subprocess.run(
        [str(env / "bin" / "python"), "-c", PARSE],
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.stdout.strip() == "parsed", run.stderr[-2000:]
