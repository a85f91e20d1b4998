"""The demo's example games: the bundled logs, each read and folded offline (what the served
standings must equal), renamed for a run on a shared Redis, and interleaved as tables play.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from contracts.envelope import Envelope
from services.cli.offline import score_file
from services.cli.remote import read_log
from services.usecases.readmodels.render import view as standings_view
from services.usecases.readmodels.shapes import StandingsResponse

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_DIRS = (ROOT / "contracts" / "examples", ROOT / "tests" / "cli" / "data")
"""Where the example logs are looked for, in order: the first directory with `*.jsonl` wins."""

COMPARED = (
    "game",
    "status",
    "seq",
    "score_unit",
    "players",
    "winner",
    "winners",
    "tie_break",
    "result",
)
"""Fields of a standings view that must equal the offline fold's (not source/checkpoint/time)."""


def example_logs(directory: Path | None = None) -> list[Path]:
    """The example JSONL logs: `directory`'s, else the first of `EXAMPLE_DIRS` holding any."""
    for candidate in (directory,) if directory else EXAMPLE_DIRS:
        found = sorted(candidate.glob("*.jsonl"))
        if found:
            return found
    return []


@dataclass
class DemoGame:
    """One example game: its file, its events (maybe renamed) and the offline fold's view."""

    path: Path
    events: list[Envelope]
    expected: StandingsResponse
    final: StandingsResponse | None = None

    @property
    def game_id(self) -> str:
        """The game's id (its first event's)."""
        return self.events[0].game_id

    def matches(self) -> bool:
        """True when the standings read over HTTP equal the offline fold's, field by field."""
        return self.final is not None and all(
            getattr(self.final, f) == getattr(self.expected, f) for f in COMPARED
        )


def load_games(paths: Sequence[Path], run_suffix: str | None) -> list[DemoGame]:
    """Read and fold every log offline. With `run_suffix` (a shared, persistent Redis), each game
    id gets `-<suffix>` so the demo can run again; event ids stay the file's."""
    games = []
    for path in paths:
        events = read_log(path)
        expected = standings_view(score_file(path), "replay")
        if run_suffix:
            events = renamed(events, run_suffix)
            expected = expected.model_copy(update={"game_id": events[0].game_id})
        games.append(DemoGame(path, events, expected))
    return games


def renamed(events: Sequence[Envelope], suffix: str) -> list[Envelope]:
    """`events` with game id `<id>-<suffix>`. Event ids are unique per game (the append's
    idempotency is per game), so they stay the file's: a void's `voided_event_id` names an
    event a reader finds in `contracts/examples/*.jsonl` (new ids made it unfindable)."""
    return [e.model_copy(update={"game_id": f"{e.game_id}-{suffix}"}) for e in events]


def round_robin(games: Sequence[DemoGame]) -> list[Envelope]:
    """All events, one of each game in turn (each game's order kept), as tables play at once."""
    queues = [list(g.events) for g in games]
    order: list[Envelope] = []
    while any(queues):
        for queue in queues:
            if queue:
                order.append(queue.pop(0))
    return order
