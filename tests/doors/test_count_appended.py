"""`services.platform.metrics.count_appended`: an append's new events and its duplicates, each
counted once under the write's source."""

from __future__ import annotations

from prometheus_client import REGISTRY

from services.platform.metrics import count_appended
from services.ports.eventlog import AppendedEvent, AppendResult


def _counted(name: str, source: str) -> float:
    return REGISTRY.get_sample_value(f"scoreledger_events_{name}_total", {"source": source}) or 0.0


def test_new_events_and_duplicates_are_counted_apart() -> None:
    source = "test-count-appended"
    events = tuple(
        AppendedEvent(f"e-{i}", i + 1, None if i % 3 == 0 else f"{i}-0", i % 3 == 0)
        for i in range(10)
    )
    before = _counted("appended", source), _counted("duplicate", source)
    count_appended(AppendResult(events, 10), source)
    count_appended(AppendResult(events[:1], 10), source)  # one duplicate alone
    assert _counted("appended", source) - before[0] == 6
    assert _counted("duplicate", source) - before[1] == 5
