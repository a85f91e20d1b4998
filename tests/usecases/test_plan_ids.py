"""`plan_append`'s event ids (services/usecases/plan.py): a batch's retries of stored events are
found while planning (`Plan.known`, what the append confirms against the stored log), each
once and in batch order; a duplicate's seq is answered from the plan's new ids, else the
base's; the cache entry's ids are keyed as the plan reads them."""

from __future__ import annotations

from typing import Any

import pytest

from domain.errors import RuleViolation
from domain.fold import fold
from services.usecases.plan import plan_append
from services.usecases.statecache import Known
from tests.query.conftest import load

LOG = load("trickerion-demo.jsonl")


def test_the_stored_ids_a_batch_names_are_found_once_in_batch_order() -> None:
    base = Known.of(fold(LOG[:10]))
    batch = [LOG[7], LOG[3], LOG[7], *LOG[10:13], LOG[3]]
    plan = plan_append(LOG[0].game_id, batch, base)
    assert plan.known == [LOG[7].event_id, LOG[3].event_id]
    assert [e.seq for e in plan.fresh] == [11, 12, 13]
    assert [plan.is_added(e) for e in batch] == [False, False, False, True, True, True, False]
    assert [plan.seq_of(e) for e in batch] == [8, 4, 8, 11, 12, 13, 4]
    assert plan.state is not None
    assert plan.state.seq == 13


def test_a_batch_of_new_events_names_no_stored_id() -> None:
    plan = plan_append(LOG[0].game_id, LOG[:20], None)
    assert plan.known == []
    assert plan.added == {e.event_id.int: e.seq for e in LOG[:20]}


def test_an_id_repeated_in_the_batch_with_another_body_is_refused_at_its_position() -> None:
    base = Known.of(fold(LOG[:10]))
    reused: Any = LOG[11].model_copy(update={"event_id": LOG[10].event_id})
    with pytest.raises(RuleViolation) as refused:
        plan_append(LOG[0].game_id, [LOG[10], reused], base)
    assert (refused.value.rule, refused.value.index) == ("log.event_id_reused", 1)


def test_the_cache_entry_and_the_plan_key_ids_alike() -> None:
    base = Known.of(fold(LOG[:10]))
    plan = plan_append(LOG[0].game_id, LOG[10:12], base)
    base.ids.update(plan.added)
    assert base.ids == Known.of(fold(LOG[:12])).ids
