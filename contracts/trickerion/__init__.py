"""Trickerion's contracts: the values recorded at game start (`options`: card ids, ruleset
options, seats joined in progress, extra Trick cards) and the event payloads (`payloads`).
Every name is importable from `contracts.trickerion` as before the split.
"""

from __future__ import annotations

from contracts.trickerion.options import (
    EXTRA_TRICK_PATTERN as EXTRA_TRICK_PATTERN,
)
from contracts.trickerion.options import (
    PERFORMANCE_CARD_IDS as PERFORMANCE_CARD_IDS,
)
from contracts.trickerion.options import (
    TRICK_IDS as TRICK_IDS,
)
from contracts.trickerion.options import (
    ArcaneWorker as ArcaneWorker,
)
from contracts.trickerion.options import (
    Character as Character,
)
from contracts.trickerion.options import (
    Count as Count,
)
from contracts.trickerion.options import (
    CounterName as CounterName,
)
from contracts.trickerion.options import (
    EndgameCondition as EndgameCondition,
)
from contracts.trickerion.options import (
    ExtraTrick as ExtraTrick,
)
from contracts.trickerion.options import (
    Frozen as Frozen,
)
from contracts.trickerion.options import (
    IfCondition as IfCondition,
)
from contracts.trickerion.options import (
    JoinedInProgress as JoinedInProgress,
)
from contracts.trickerion.options import (
    PerCondition as PerCondition,
)
from contracts.trickerion.options import (
    PerformanceCardId as PerformanceCardId,
)
from contracts.trickerion.options import (
    PrintedPoints as PrintedPoints,
)
from contracts.trickerion.options import (
    PrintedYield as PrintedYield,
)
from contracts.trickerion.options import (
    SeatNow as SeatNow,
)
from contracts.trickerion.options import (
    ShapeshifterType as ShapeshifterType,
)
from contracts.trickerion.options import (
    Specialist as Specialist,
)
from contracts.trickerion.options import (
    TrickerionOptions as TrickerionOptions,
)
from contracts.trickerion.options import (
    TrickId as TrickId,
)
from contracts.trickerion.options import (
    Weekday as Weekday,
)
from contracts.trickerion.payloads import (
    MAX_PLAYERS as MAX_PLAYERS,
)
from contracts.trickerion.payloads import (
    TRICKERION_PAYLOADS as TRICKERION_PAYLOADS,
)
from contracts.trickerion.payloads import (
    Advertised as Advertised,
)
from contracts.trickerion.payloads import (
    CharacterHired as CharacterHired,
)
from contracts.trickerion.payloads import (
    EndgameInventoryDeclared as EndgameInventoryDeclared,
)
from contracts.trickerion.payloads import (
    Level3Holding as Level3Holding,
)
from contracts.trickerion.payloads import (
    LinkCreated as LinkCreated,
)
from contracts.trickerion.payloads import (
    PerformanceGiven as PerformanceGiven,
)
from contracts.trickerion.payloads import (
    ResourceReason as ResourceReason,
)
from contracts.trickerion.payloads import (
    ResourcesChanged as ResourcesChanged,
)
from contracts.trickerion.payloads import (
    TrickerionGameStarted as TrickerionGameStarted,
)
from contracts.trickerion.payloads import (
    TrickLearned as TrickLearned,
)
from contracts.trickerion.payloads import (
    TrickYielded as TrickYielded,
)
