"""`python replay_flood.py INGEST_URL QUERY_URL OUT.json [SECONDS] [CLIENTS] [EVENTS]`: the
replay flood of an availability probe, loopback only, bounded in time and count.

1. Creates, through ingest HTTP, one long game of `EVENTS` events (default 20,000: the
   Trickerion example's play, then referee corrections, a void every 50th) and `SMALL` copies
   of the 91-event Penumbra example (no credential needed: a creator chooses its token).
2. For `SECONDS` (default 60, at most 600), `CLIENTS` flooders (default 8, at most 32), each
   from its own loopback address (127.0.0.11, .12, ...: distinct clients to the server),
   request `GET /games/{long}/standings?at_seq=N` with a distinct N each time, without pause,
   answering nothing but the next request to a 429 or 503 (a hostile client).
3. Meanwhile one reader (127.0.0.2) replays the small games, one request at a time with 100 ms
   between, each a distinct (game, at_seq) so no answer is cached, and one poller (127.0.0.3)
   GETs `/healthz` every 10 ms.

Writes {"small": {count, p50_ms, p99_ms, max_ms, statuses}, "healthz": {...}, "flood":
{requests, statuses}, "setup_s", ...} to OUT.json and prints it. Stdlib only, so the same
script measures any tree. Source: an availability report (replays in arrival order behind a
flood of uncached `at_seq` on a 20,000-event game).
"""

from __future__ import annotations

import http.client
import json
import random
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

EXAMPLES = Path(__file__).resolve().parents[3] / "contracts" / "examples"
SMALL = 20
"""Copies of the small game: 20 x 91 distinct (game, at_seq) reads, more than 60 s reads."""
BATCH = 1000
TIMEOUT_S = 60.0


def _connect(url: str, source: str) -> http.client.HTTPConnection:
    where = urlsplit(url)
    return http.client.HTTPConnection(
        where.hostname or "127.0.0.1", where.port, timeout=TIMEOUT_S, source_address=(source, 0)
    )


def _lines(name: str) -> list[dict[str, Any]]:
    text = (EXAMPLES / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _renamed(events: list[dict[str, Any]], game_id: str) -> list[dict[str, Any]]:
    """`events` as game `game_id` with fresh event ids (voids and causations follow them)."""
    new = {e["event_id"]: str(uuid.uuid4()) for e in events}
    out = []
    for e in events:
        payload = dict(e["payload"])
        if payload.get("voided_event_id") in new:
            payload["voided_event_id"] = new[payload["voided_event_id"]]
        cause = e.get("causation_id")
        out.append({**e, "event_id": new[e["event_id"]], "game_id": game_id, "payload": payload,
                    "causation_id": new.get(cause, cause)})  # fmt: skip
    return out


def long_game(game_id: str, events: int) -> list[dict[str, Any]]:
    """The Trickerion example's start and play (not its end), then referee corrections (a void
    of the previous correction every 50th) up to `events` events."""
    play = _lines("trickerion-4p-dark-alley-academy.jsonl")
    play = [
        e for e in play if e["type"] not in ("game.ended", "trickerion.endgame_inventory_declared")
    ]
    out = _renamed(play[:events], game_id)
    players = [p["player_id"] for p in play[0]["payload"]["players"]]
    stamp = play[-1]["occurred_at"]
    while len(out) < events:
        seq = len(out) + 1
        base = {"event_id": str(uuid.uuid4()), "game_id": game_id, "seq": seq,
                "schema_version": 1, "occurred_at": stamp, "actor": "probe"}  # fmt: skip
        if seq % 50 == 0 and out[-1]["type"] == "game.score_corrected":
            payload = {"voided_event_id": out[-1]["event_id"], "reason": "probe", "referee": "p"}
            out.append({**base, "type": "game.event_voided", "payload": payload})
            continue
        payload = {"player_id": players[seq % len(players)], "amount": 1 if seq % 3 else -1,
                   "reason": "probe", "referee": "p"}  # fmt: skip
        out.append(
            {**base, "type": "game.score_corrected", "schema_version": 2, "payload": payload}
        )
    return out


def small_game(game_id: str) -> list[dict[str, Any]]:
    """The Penumbra example (91 events) as game `game_id`."""
    return _renamed(_lines("penumbra-3p.jsonl"), game_id)


def publish(url: str, events: list[dict[str, Any]]) -> None:
    """POST `events` in batches under a chosen token (201 expected)."""
    token = "probe-" + uuid.uuid4().hex + uuid.uuid4().hex
    conn = _connect(url, "127.0.0.1")
    for first in range(0, len(events), BATCH):
        body = json.dumps(events[first : first + BATCH]).encode()
        conn.request(
            "POST",
            f"/games/{events[0]['game_id']}/events",
            body,
            {"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        )
        response = conn.getresponse()
        text = response.read()
        if response.status != 201:
            raise RuntimeError(f"append answered {response.status}: {text[:300]!r}")
    conn.close()


def _get(conn: http.client.HTTPConnection, path: str) -> tuple[int, float]:
    started = time.perf_counter()
    conn.request("GET", path)
    response = conn.getresponse()
    response.read()
    return response.status, (time.perf_counter() - started) * 1000


def _summary(ms: list[float], statuses: dict[int, int]) -> dict[str, Any]:
    ordered = sorted(ms)

    def at(q: float) -> float | None:
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1) if ordered else None

    return {"count": len(ms), "p50_ms": at(0.5), "p99_ms": at(0.99),
            "max_ms": round(ordered[-1], 1) if ordered else None,
            "statuses": {str(k): v for k, v in sorted(statuses.items())}}  # fmt: skip


def _reader(
    query: str,
    stop: threading.Event,
    pairs: list[tuple[str, int]],
    ms_ok: list[float],
    statuses: dict[int, int],
) -> None:
    """Read the small games' standings at each `(game, seq)` of `pairs`, 10 a second."""
    conn = _connect(query, "127.0.0.2")
    for game, at in pairs:
        if stop.is_set():
            break
        status, ms = _get(conn, f"/games/{game}/standings?at_seq={at}")
        statuses[status] = statuses.get(status, 0) + 1
        if status == 200:
            ms_ok.append(ms)
        time.sleep(0.1)
    conn.close()


def _poller(
    query: str, stop: threading.Event, ms_all: list[float], statuses: dict[int, int]
) -> None:
    """Poll `/healthz` every 10 ms until `stop`."""
    conn = _connect(query, "127.0.0.3")
    while not stop.is_set():
        status, ms = _get(conn, "/healthz")
        statuses[status] = statuses.get(status, 0) + 1
        ms_all.append(ms)
        time.sleep(0.01)
    conn.close()


def main() -> None:
    ingest, query, out = sys.argv[1], sys.argv[2], sys.argv[3]
    seconds = min(600.0, float(sys.argv[4]) if len(sys.argv) > 4 else 60.0)
    clients = min(32, int(sys.argv[5]) if len(sys.argv) > 5 else 8)
    events = min(50_000, int(sys.argv[6]) if len(sys.argv) > 6 else 20_000)
    run = uuid.uuid4().hex[:6]
    big = f"flood-{run}-long"
    smalls = [f"flood-{run}-small-{i}" for i in range(SMALL)]
    started = time.perf_counter()
    publish(ingest, long_game(big, events))
    for game in smalls:
        publish(ingest, small_game(game))
    setup_s = time.perf_counter() - started

    stop = threading.Event()
    lock = threading.Lock()
    flood: dict[int, int] = {}
    seqs = list(range(1, events + 1))
    random.shuffle(seqs)
    cursor = iter(seqs * 10)

    def flooder(address: str) -> None:
        conn = _connect(query, address)
        while not stop.is_set():
            with lock:
                at = next(cursor)
            try:
                status, _ = _get(conn, f"/games/{big}/standings?at_seq={at}")
            except (OSError, http.client.HTTPException):
                status = 0
                conn.close()
                conn = _connect(query, address)
            with lock:
                flood[status] = flood.get(status, 0) + 1
        conn.close()

    small_ms: list[float] = []
    small_status: dict[int, int] = {}
    pairs = [(g, n) for n in range(1, 92) for g in smalls]
    random.shuffle(pairs)

    health_ms: list[float] = []
    health_status: dict[int, int] = {}

    threads = [
        threading.Thread(target=flooder, args=(f"127.0.0.{11 + i}",)) for i in range(clients)
    ]
    threads += [
        threading.Thread(target=_reader, args=(query, stop, pairs, small_ms, small_status)),
        threading.Thread(target=_poller, args=(query, stop, health_ms, health_status)),
    ]
    for thread in threads:
        thread.start()
    time.sleep(seconds)
    stop.set()
    for thread in threads:
        thread.join(timeout=TIMEOUT_S + 5)
    result = {
        "events": events, "clients": clients, "seconds": seconds, "setup_s": round(setup_s, 1),
        "small": _summary(small_ms, small_status),
        "healthz": _summary(health_ms, health_status),
        "flood": {"requests": sum(flood.values()), "statuses": {str(k): v for k, v in sorted(flood.items())}},
    }  # fmt: skip
    Path(out).write_text(json.dumps(result, indent=1), encoding="utf-8")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
