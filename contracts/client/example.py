"""Runnable example: create a game with a chosen token, check the next batch with a dry run
(twice: the second answer is not a duplicate, so the first stored nothing), send the example
game with a lost response and a retry, follow the standings over SSE (with a resume) to the
last seq, and print the final standings as JSON.

    python -m contracts.client.example --base-url http://127.0.0.1:8000 \
        [--log contracts/examples/penumbra-3p.jsonl] [--batch 20] [--game-id ID]

The game is created as `--game-id`, by default the file's game id with a fresh suffix
(`pen-demo-3p-1a2b3c`): the file's own id may be taken already (`make demo` publishes the same
files under it), and a game another token created refuses this one's writes. Event ids stay the
file's (they are unique per game), so a void's `voided_event_id` is found in the file.

The output's last line is `{"game_id", "status", "winner", "players": {id: {rank, total}},
"lost_responses", "duplicates", "dry_run", "resumed"}`. Exit status 1 with the problem on a refusal.
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import threading
from pathlib import Path

import httpx

from contracts.client.client import Client, new_write_token
from contracts.client.outbox import Outbox
from contracts.client.problems import ScoreledgerError
from contracts.client.sse import StandingsFrame
from contracts.events import parse_event_json

DEFAULT_LOG = Path(__file__).resolve().parents[1] / "examples" / "penumbra-3p.jsonl"


class LoseResponses(httpx.BaseTransport):
    """A transport that delivers the `lose`-th, ... POSTs to the service and then drops the
    answer (`httpx.ReadError`), as a network that fails after the write would."""

    def __init__(self, lose: set[int]) -> None:
        self.inner = httpx.HTTPTransport()
        self.lose = lose
        self.posts = 0
        self.lost = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Forward `request`; raise `httpx.ReadError` instead of its answer when chosen."""
        answer = self.inner.handle_request(request)
        if request.method == "POST":
            self.posts += 1
            if self.posts in self.lose:
                answer.read()
                answer.close()
                self.lost += 1
                raise httpx.ReadError("response lost (simulated)", request=request)
        return answer

    def close(self) -> None:
        """Close the inner transport."""
        self.inner.close()


def follow_to(client: Client, game_id: str, last_seq: int, seen: list[StandingsFrame]) -> None:
    """Read the live standings until a frame at `last_seq`, dropping the connection after
    the first frame and resuming with its id (`Last-Event-ID`)."""
    for frame in client.follow(game_id):
        seen.append(frame)
        break  # a dropped connection: resume below from the last id
    for frame in client.follow(game_id, last_event_id=seen[-1].id if seen else None):
        seen.append(frame)
        if frame.seq == last_seq:
            return


def check_dry_run(writer: Client, game_id: str, outbox: Outbox, batch: int) -> dict[str, object]:
    """Send the outbox's next batch as a dry run twice: the answers name the seqs the write
    would take, and the second is no duplicate (the first stored nothing); the outbox keeps
    the batch for the real send. Raises: ScoreledgerError (a refusal, or a stored dry run)."""
    _, body = outbox.batch(batch)
    first, again = (writer.append(game_id, body, dry_run=True) for _ in range(2))
    if any(e.duplicate for e in again.events) or first.version != again.version:
        raise ScoreledgerError("a dry run stored its events")
    return {"events": len(first.events), "version": first.version, "stored": False}


def as_game(lines: list[bytes], game_id: str | None) -> list[bytes]:
    """The log's events as game `game_id` (None: the file's id with a fresh suffix), each
    serialised once here; the outbox keeps these bytes for every attempt."""
    raw = [json.loads(line) for line in lines]
    game_id = game_id or f"{raw[0]['game_id']}-{secrets.token_hex(3)}"
    return [
        json.dumps(
            {**event, "game_id": game_id}, ensure_ascii=False, separators=(",", ":")
        ).encode()
        for event in raw
    ]


def run(base_url: str, log: Path, batch: int, game_id: str | None = None) -> dict[str, object]:
    """The example's steps; returns the summary printed. Raises: ScoreledgerError."""
    lines = as_game([line for line in log.read_bytes().splitlines() if line.strip()], game_id)
    events = [parse_event_json(line) for line in lines]
    game_id, last_seq = events[0].game_id, events[-1].seq
    outbox = Outbox(game_id)
    for event, raw in zip(events, lines, strict=True):
        outbox.add(event, raw)  # serialised once, resent as they are

    # POSTs: 1 creates the game, 2 and 3 are dry runs, 4 is stored and its answer lost
    transport = LoseResponses(lose={4})
    token = new_write_token()
    with Client(base_url, token, transport=transport) as writer, Client(base_url) as reader:
        ids, body = outbox.batch(1)  # the first event creates the game with the chosen token
        first = [writer.append(game_id, body)]
        outbox.acknowledge(ids)
        seen: list[StandingsFrame] = []
        follower = threading.Thread(
            target=follow_to, args=(reader, game_id, last_seq, seen), daemon=True
        )
        follower.start()
        dry_run = check_dry_run(writer, game_id, outbox, batch)
        answers = first + writer.send(outbox, batch)
        follower.join(timeout=120)
        if follower.is_alive() or not seen or seen[-1].seq != last_seq:
            raise ScoreledgerError(f"the live standings did not reach seq {last_seq}")
        final = reader.standings(game_id)
    return {
        "game_id": final["game_id"],
        "status": final["status"],
        "winner": final["winner"],
        "players": {
            p["player_id"]: {"rank": p["rank"], "total": p["total"]} for p in final["players"]
        },
        "lost_responses": transport.lost,
        "duplicates": sum(e.duplicate for a in answers for e in a.events),
        "dry_run": dry_run,
        "frames": len(seen),
        "resumed": len(seen) >= 2,
    }


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments and run; 0 on success, 1 (the error on stderr) on a failure."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--log", type=Path, default=DEFAULT_LOG)
    parser.add_argument("--batch", type=int, default=20)
    parser.add_argument("--game-id", default=None, help="default: the file's id, a new suffix")
    args = parser.parse_args(argv)
    try:
        summary = run(args.base_url, args.log, args.batch, args.game_id)
    except ScoreledgerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(summary, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
