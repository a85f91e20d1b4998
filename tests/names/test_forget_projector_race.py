"""A forget of a live game whose newest events the projector has not folded yet: the
projector's cached fold still holds the name, and its next write must not put the name back
(docs/forget.md: the projector's next write folds the log, names as they are now)."""

from __future__ import annotations

import json

import pytest

from contracts.events import parse_event_json
from services.bootstrap import memory_ports
from services.usecases.names import Forget
from services.usecases.project import Project
from tests.names.helpers import GAME, PLAYER, holds_name, lines

SHARDS = 1


@pytest.mark.parametrize("split", [False, True], ids=["one-batch", "refeed-alone"])
async def test_a_forget_before_the_projector_folds_the_last_events_leaves_no_name(
    split: bool,
) -> None:
    ports = memory_ports(SHARDS)
    assert ports.names is not None
    backend = ports.log.b  # type: ignore[attr-defined]
    named = ports.named_log()
    project = Project(named, ports.projections, ports.letters, names=ports.names)
    events = [parse_event_json(line) for line in lines()]
    await named.append(GAME, events[:10])
    feed = backend.feeds[0]
    await project.apply(0, list(feed))
    read = len(feed)
    stored = backend.projections[GAME]
    assert stored["seq"] == "10"
    assert holds_name(json.dumps(stored, ensure_ascii=False).encode())  # the check can fail
    await named.append(GAME, events[10:])
    # the forget runs before the projector reads the new events (it also feeds the last again)
    await Forget(ports.log, ports.names).forget(GAME, PLAYER)
    batch = feed[read:]
    assert batch[-1].seq == len(events)  # the forget's feed entry, after the new events
    if split:
        await project.apply(0, batch[:-1])
        await project.apply(0, batch[-1:])
    else:
        await project.apply(0, batch)
    stored = backend.projections[GAME]
    assert stored["seq"] == str(len(events))
    assert not holds_name(json.dumps(stored, ensure_ascii=False).encode())
