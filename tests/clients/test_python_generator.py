"""openapi-python-client (0.29.1, installed for this test only, in a throwaway virtual
environment) generates a client from contracts/openapi.json without a duplicate model.

With the problem shape written inline on each route's 4xx answers, the generator named one
model per route and status, found them equal, and dropped those answers ("Attempted to
generate duplicate models", so `parsed` was None for them); the shape is now one shared
OpenAPI component (`Problem`).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GENERATOR = "openapi-python-client==0.29.1"


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
