"""`scoreledger demo --keep-running` prints each demo game's scoreboard, TV view and write
token, and the printed token is the one ingest accepts (so a newcomer can try the dispute
form). The demo runs in a subprocess on a throwaway redis-server and is stopped at the end."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from services.platform.lifetime import stop_child

pytestmark = [pytest.mark.redis, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]
LINE = re.compile(
    r"(\S+): (http://\S+)/games/\S+\s+TV: \S+\s+write token \(for the dispute form\): (\S+)"
)


@pytest.mark.timeout(300)
def test_keep_running_prints_a_working_write_token_per_game() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "SCORELEDGER_REDIS_URL")}
    env["COLUMNS"] = "200"
    demo = subprocess.Popen(
        [sys.executable, "-m", "services.cli.main", "demo", "--keep-running"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        seen: dict[str, tuple[str, str]] = {}
        deadline = time.monotonic() + 240
        assert demo.stdout is not None
        for line in demo.stdout:
            if match := LINE.search(line):
                seen[match[1]] = (match[2], match[3])
            if "serving until Ctrl-C" in line or time.monotonic() > deadline:
                break
        assert {"pen-demo-3p", "tr-4p-dark-alley-academy"} <= set(seen)
        url, token = seen["pen-demo-3p"]
        version = len(httpx.get(f"{url}/games/pen-demo-3p/timeline").json()["events"])
        correction = {
            "event_id": str(uuid.uuid4()), "game_id": "pen-demo-3p", "seq": version + 1,
            "type": "game.score_corrected", "schema_version": 2,
            "occurred_at": datetime.now(UTC).isoformat(), "actor": "ref-new",
            "payload": {"player_id": "oren", "amount": 1, "reason": "try", "referee": "ref-new"},
        }  # fmt: skip
        answer = httpx.post(
            f"{url}/games/pen-demo-3p/events",
            json=[correction],
            headers={"Authorization": f"Bearer {token}"},
        )
        assert answer.status_code == 201, answer.text
    finally:
        stop_child(demo, signal.SIGINT, 20)
