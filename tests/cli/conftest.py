"""Shared data for the CLI tests: the bundled JSONL logs under tests/cli/data/."""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
TRICKERION_LOG = DATA / "trickerion-demo.jsonl"
PENUMBRA_LOG = DATA / "penumbra-demo.jsonl"


@pytest.fixture
def trickerion_log() -> Path:
    """A finished Trickerion game with corrections, a void and an initiative change (11 events)."""
    return TRICKERION_LOG


@pytest.fixture
def penumbra_log() -> Path:
    """A Penumbra game in progress, with a v1 `game.score_corrected` that is upcast (8 events)."""
    return PENUMBRA_LOG
