"""The run's header: machine (CPU model, cores, memory), date, command and git commit."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory_gib() -> str:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                return f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    return "unknown"


def _git(*args: str) -> str:
    try:
        return subprocess.run(
            ["git", *args], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def header() -> dict[str, str]:
    """Machine, date, command and commit, as label -> text."""
    dirty = " (+ uncommitted changes in the tree)" if _git("status", "--porcelain") else ""
    load = os.getloadavg()
    return {
        "Machine": f"{_cpu_model()}, {os.cpu_count()} cores, {_memory_gib()} RAM, {platform.system()} "
        f"{platform.release()}, Python {platform.python_version()}",
        "Load average at start": f"{load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f} (1 / 5 / 15 min)",
        "Date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "Command": "python -m services.bench " + " ".join(sys.argv[1:]),
        "Commit": _git("rev-parse", "--short", "HEAD") + dirty,
        "Redis": _redis_version(),
    }


def _redis_version() -> str:
    try:
        out = subprocess.run(
            ["redis-server", "--version"], capture_output=True, text=True, check=True
        ).stdout
        return out.split()[2].removeprefix("v=")
    except (OSError, subprocess.CalledProcessError, IndexError):
        return "unknown"
