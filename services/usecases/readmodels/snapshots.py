"""Snapshots of folded games in a replay worker: the cost of a replay at any seq bounded by the
snapshot spacing, not by the game's length.

A replay at seq N (`?at_seq=N`, a ledger then, a dispute) needs the state after event N.
Folding events 1..N for each request made every new N of a 20,000-event game cost 0.5-1.6 s
of worker time (an availability report on main 25106cc). Here a worker keeps, per game, the
state after every `every`-th event (and after the furthest event it folded, the tip) and
answers N from the nearest snapshot at or before it: it reads and parses events s+1..N only
(at most `every` of them, or those past the tip once), and resumes the fold there
(`Folder.resume`). The states a fold hands out share its lists (`domain.fold`), so the
snapshots of one game cost little more than its tip. An audit page reads its own range and
takes the voids from an index of the game's voids kept the same way (only events past the
index are scanned, and only those whose bytes name a void are parsed).

A snapshot equals a fold from the first event: events are immutable and a fold is a pure
function of them (tests/query/test_replay_snapshots.py checks the answers byte for byte, for
any N, in any order of requests). The log could still differ from what a snapshot folded
after a Redis restored from an older backup (events lost, others appended at the same seqs)
or a test that flushes Redis and reuses a game id: so each use first compares the stored
bytes of the game's first event and of the snapshot's own event with the bytes it folded
(they carry `recorded_at`, stamped by the store on every append, so a log appended again
differs there), in the same reads, and drops the game's snapshots on a mismatch.

Runs in a worker process (`offloop`), one cache per process, bounded in bytes
(`sizedcache.game_bytes` of each game's tip) and in games. Source: issue brief (bound the cost
of any at_seq, dispute, ledger or events page on a long game by stored snapshots).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from contracts.common import EventVoided
from contracts.events import parse_event_json
from domain.fold import Folder, GameState
from services.runtime.sizedcache import ByteLRU, game_bytes

T = TypeVar("T")

Read = Callable[[int, int], list[bytes]]
"""`read(first, last)`: the stored envelopes of seqs first..last of one game (fewer when the
log is shorter)."""

VOID_TYPE = b'"' + EventVoided.TYPE.encode() + b'"'
"""What a stored void's bytes contain (its `type`); other events are not parsed to find voids."""


@dataclass(frozen=True)
class SnapshotConfig:
    """How a worker keeps snapshots: the state after every `every`-th event, at most
    `max_bytes` (estimated) and `max_games` games in all, least recently used evicted. One job
    folds at most `slice` events (a game's first fold in a worker is cut in slices, each
    its own turn of the replay queue: `Unfinished`)."""

    every: int = 200
    max_bytes: int = 256 * 1024 * 1024
    max_games: int = 1000
    slice: int = 2000


@dataclass(frozen=True)
class Unfinished:
    """A job's answer when it folded its `slice` of events (up to `seq`) and kept them as
    snapshots, but not yet up to the seq asked: the caller runs it again in a later turn."""

    seq: int


@dataclass
class GameSnapshots:
    """One game's snapshots: `states` by seq (ascending `seqs`: multiples of `every` and the
    tip), the stored bytes of each snapshot's event and of event 1 (checked before use), and
    the voids index of events 1..`voids_upto` (the stored bytes of that event in `voids_raw`).
    """

    first: bytes
    states: dict[int, GameState] = field(default_factory=dict)
    seqs: list[int] = field(default_factory=list)
    raw: dict[int, bytes] = field(default_factory=dict)
    voids: dict[str, int] = field(default_factory=dict)
    voids_upto: int = 0
    voids_raw: bytes = b""

    @property
    def tip(self) -> int:
        """The furthest seq folded (0: none)."""
        return self.seqs[-1] if self.seqs else 0

    def keep(self, state: GameState, data: bytes, every: int) -> None:
        """Keep `state` (after its last event, stored as `data`), past the tip; a former tip
        that is not a multiple of `every` gives way (a live game's snapshots stay n / every)."""
        if self.seqs and self.seqs[-1] % every:
            gone = self.seqs.pop()
            del self.states[gone], self.raw[gone]
        self.states[state.seq] = state
        self.raw[state.seq] = data
        self.seqs.append(state.seq)

    def size(self) -> int:
        """Estimated bytes: the tip's folded game, and per snapshot the list slots it may keep
        alive on its own (a void makes the fold copy its lists: history, ledger, marks)."""
        return game_bytes(self.tip) + sum(32 * seq + 512 for seq in self.seqs)


class Snapshots:
    """The snapshots of one worker process (see the module docstring)."""

    def __init__(self, config: SnapshotConfig) -> None:
        self.config = config
        self._games: ByteLRU[str, GameSnapshots] = ByteLRU(
            config.max_bytes, GameSnapshots.size, config.max_games
        )

    def state_at(
        self, read: Read, game_id: str, upto: int, most: int | None = None
    ) -> GameState | Unfinished:
        """The state after event `upto` (the log's last when it is shorter), from the nearest
        snapshot at or before `upto`: reads and folds only the events after it, and at most
        `most` of them (None: all): `Unfinished` when more were needed (kept as snapshots).

        Raises:
            RuleViolation: a stored event breaks a rule (never for an appended log);
                `log.empty` for a game without events.
        """
        kept = self._games.get(game_id)
        base: GameState | None = None
        raw: list[bytes] = []
        at = bisect_right(kept.seqs, upto) if kept is not None else 0
        end = upto
        if kept is not None and at:
            s = kept.seqs[at - 1]
            end = upto if most is None else min(upto, s + most)
            first, raw = read(1, 1), read(s, end)
            if first[:1] == [kept.first] and raw[:1] == [kept.raw[s]]:
                base, raw = kept.states[s], raw[1:]
            else:  # not the log that was folded
                kept = None
        if base is None:
            end = upto if most is None else min(upto, most)
            raw = read(1, end)
        if kept is None or (base is None and raw[:1] != [kept.first]):
            kept = GameSnapshots(first=raw[0] if raw else b"")  # (base is None here)
        game: GameSnapshots = kept
        folder: Folder[Any] = Folder.resume(base)
        every, tip = self.config.every, game.tip
        for data in raw:
            event = parse_event_json(data)
            folder.add(event)
            if event.seq > tip and event.seq % every == 0:
                game.keep(folder.state, data, every)
        state = folder.state
        if state.seq > game.tip:  # the new tip, a snapshot until a further one
            game.keep(state, raw[-1], every)
        self._games.put(game_id, game)
        if end < upto and state.seq == end:  # a slice done; the log goes on
            return Unfinished(state.seq)
        return state

    def voids_upto(self, read: Read, game_id: str, upto: int) -> dict[str, int]:
        """Voided event id -> seq of its `game.event_voided`, for the voids among events
        1..`upto`. Only the events past the game's index are read; of those, only the ones
        whose bytes name a void are parsed."""
        game = self._games.get(game_id)
        first = read(1, 1)
        if game is None or first[:1] != [game.first]:
            game = GameSnapshots(first=first[0] if first else b"")
        voids: dict[str, int] = {}
        begin, raw = 0, []
        if 0 < game.voids_upto <= upto:
            raw = read(game.voids_upto, upto)
            if raw[:1] == [game.voids_raw]:
                voids, begin, raw = dict(game.voids), game.voids_upto, raw[1:]
            else:  # not the log that was indexed
                game = GameSnapshots(first=first[0] if first else b"")
                raw = []
        if not begin:
            raw = read(1, upto)
        for data in raw:
            if VOID_TYPE in data:
                event = parse_event_json(data)
                if isinstance(event.payload, EventVoided):
                    voids[str(event.payload.voided_event_id)] = event.seq
        if raw and begin + len(raw) > game.voids_upto:
            game.voids, game.voids_upto, game.voids_raw = dict(voids), begin + len(raw), raw[-1]
        self._games.put(game_id, game)
        return voids


_cache: Snapshots | None = None


def cache(config: SnapshotConfig) -> Snapshots:
    """This process's snapshots (made anew when `config` changes)."""
    global _cache
    if _cache is None or _cache.config != config:
        _cache = Snapshots(config)
    return _cache


def state_job(
    config: SnapshotConfig,
    read: Read,
    game_id: str,
    upto: int,
    work: Callable[..., T],
    args: tuple[Any, ...],
) -> T:
    """In a worker (`offloop.Job`): `work(state after event upto, *args)`, the state from this
    process's snapshots; `Unfinished` when the state needs more than `config.slice` events
    folded (run the job again: it goes on from where this one stopped)."""
    state = cache(config).state_at(read, game_id, upto, config.slice)
    if isinstance(state, Unfinished):
        return state  # type: ignore[return-value]  # the caller's to handle (offloop)
    return work(state, *args)


def page_job(
    config: SnapshotConfig,
    read: Read,
    game_id: str,
    upto: int,
    work: Callable[..., T],
    args: tuple[Any, ...],
) -> T:
    """In a worker (`offloop.Job`): an audit page of the log at version `upto`, `args` =
    (from_seq, limit): `work(events from_seq.., voids of 1..upto, game_id, upto, from_seq,
    limit)`, reading only the page's range and the events past the voids index."""
    from_seq, limit = args
    voids = cache(config).voids_upto(read, game_id, upto)
    last = min(upto, from_seq + limit - 1)
    page = [parse_event_json(data) for data in read(from_seq, last)] if from_seq <= last else []
    return work(page, voids, game_id, upto, from_seq, limit)
