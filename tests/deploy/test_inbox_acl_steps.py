"""The inbox page's ACL steps (docs/integrating/inbox.md, "Give an integration its own stream")
run as printed: the block names every variable `deploy/scripts/redis-acl.sh` needs (it hid the
roles' passwords behind "..."), renders one user per listed integration, and the page's
dead-letter command reads the key the adapter writes."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
from pathlib import Path

from services.adapters.redis.keys import Keys

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "integrating" / "inbox.md"


def _acl_block() -> str:
    text = PAGE.read_text(encoding="utf-8")
    step = text[text.index("2. Render the ACL") :]
    found = re.search(r"```bash\n(.*?)```", step, re.S)
    assert found is not None
    return "\n".join(line.strip() for line in found.group(1).splitlines())


def test_the_acl_block_names_every_variable_and_renders(tmp_path: Path) -> None:
    block = _acl_block()
    assert "..." not in block
    assert "…" not in block
    (tmp_path / "deploy").symlink_to(ROOT / "deploy")
    deployed = {
        f"REDIS_{role}_PASSWORD": secrets.token_urlsafe(24)
        for role in ("INGEST", "PROJECTOR", "QUERY", "ADMIN")
    }
    done = subprocess.run(
        ["bash", "-euc", block],
        cwd=tmp_path,
        env={"PATH": os.environ["PATH"], **deployed},
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    users = [line.split()[1] for line in (tmp_path / "users.acl").read_text().splitlines()]
    assert users == [
        "default",
        "health",
        "ingest",
        "projector",
        "query",
        "admin",
        "integration-table-7",
        "integration-app-2",
    ]


def test_the_dead_letter_command_reads_the_key_the_adapter_writes() -> None:
    text = PAGE.read_text(encoding="utf-8")
    key = Keys(16).integration_dead_letters("table-7")
    assert f"XRANGE '{key}' - +" in text
