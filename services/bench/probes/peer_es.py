"""`python peer_es.py OUT.json FILE...`: the peer, the `eventsourcing` library on PostgreSQL
(127.0.0.1:5432, trust auth, a fresh table dropped afterwards), doing our work: append every
game's events in batches of 50 (one library event per game event, the envelope JSON), each
event first validated and checked against the game's rules as our ingest does (parsed, then
folded onto the game's state with the tree's own fold: `Folder.add`, or `evolve` in a tree
without it), then read each game back and fold it to final standings. `PEER_WORK=store`
leaves out the check at the write (the peer as first written: it stored what it was sent).
Writes {"events", "wall_s", "cpu_s"}. Source: docs/decisions/0008-upcast-on-read.md (eventsourcing)."""

from __future__ import annotations

import json
import os
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event

BATCH = 50


class GameLog(Aggregate):
    """One game: the envelope JSON lines in order."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self.lines: list[str] = []

    @classmethod
    def create_id(cls, game_id: str) -> uuid.UUID:
        return uuid.uuid5(uuid.NAMESPACE_URL, game_id)

    @event("Recorded")
    def record(self, line: str) -> None:
        self.lines.append(line)


def checker() -> Any:
    """`check(state, line) -> state`: the line parsed and folded onto the game's state (raises
    on a schema or rule violation), with this tree's fold."""
    from contracts.events import parse_event_json
    from domain import fold as folds

    if hasattr(folds, "Folder"):

        def check(folder: Any, line: str) -> Any:
            folder = folder if folder is not None else folds.Folder()
            folder.add(parse_event_json(line))
            return folder

        return check
    return lambda state, line: folds.evolve(state, parse_event_json(line))


def main() -> None:
    from contracts.events import parse_event_json
    from domain.fold import fold
    from domain.standings import standings

    out, files = sys.argv[1], sys.argv[2:]
    games = [Path(f).read_text(encoding="utf-8").splitlines() for f in files]
    name = f"BenchPeer{os.getpid()}{int(time.time())}"
    env: dict[str, Any] = {
        "PERSISTENCE_MODULE": "eventsourcing.postgres",
        "POSTGRES_DBNAME": os.environ.get("BENCH_PG_DB", "test"),
        "POSTGRES_HOST": "127.0.0.1",
        "POSTGRES_PORT": "5432",
        "POSTGRES_USER": os.environ.get("USER", "root"),
        "POSTGRES_PASSWORD": "",
        "CREATE_TABLE": "y",
    }
    app = type(name, (Application,), {"name": name})(env=env)
    try:
        wall0, cpu0 = time.perf_counter(), time.process_time()
        ids = []
        check = checker() if os.environ.get("PEER_WORK", "checked") == "checked" else None
        for game in games:
            log = GameLog(game_id=json.loads(game[0])["game_id"])
            state = None
            for i, line in enumerate(game):
                if check is not None:
                    state = check(state, line)  # refused events would not be recorded
                log.record(line=line)
                if (i + 1) % BATCH == 0:
                    app.save(log)
            app.save(log)
            ids.append(log.id)
        for aggregate_id in ids:
            standings(fold([parse_event_json(x) for x in app.repository.get(aggregate_id).lines]))
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    finally:
        datastore = getattr(app.recorder, "datastore", None)
        if datastore is not None:
            with datastore.transaction(commit=True) as curs:
                curs.execute(f"DROP TABLE IF EXISTS {name.lower()}_events")
        app.close()
    with open(out, "w", encoding="utf-8") as fh:
        json.dump({"events": sum(len(g) for g in games), "wall_s": wall, "cpu_s": cpu}, fh)


if __name__ == "__main__":
    main()
