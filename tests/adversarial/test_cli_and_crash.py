"""The CLI fed clumsy files, and the whole `scoreledger serve` process killed with SIGKILL while
events stream in: after a restart the live standings equal `score` of `export` (docs/architecture/index.md: 'After
kill -9 at any moment it resumes exactly: nothing lost, nothing counted twice')."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from services.cli.main import app
from tests.adversarial.conftest import PENUMBRA, TRICKERION, example_game
from tests.redis_fixture import free_port

pytestmark = pytest.mark.redis
ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


def score_json(path: Path) -> dict[str, object]:
    result = runner.invoke(app, ["score", str(path), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # type: ignore[no-any-return]


@pytest.mark.parametrize("text", ["", "\n\n", "\r\n"])
def test_score_of_a_file_without_events_fails(tmp_path: Path, text: str) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text(text, encoding="utf-8")
    result = runner.invoke(app, ["score", str(empty)])
    assert result.exit_code != 0
    assert "log.empty" in result.output


def test_score_ignores_blank_lines_and_crlf(tmp_path: Path) -> None:
    lines = PENUMBRA.read_text(encoding="utf-8").splitlines()
    messy = tmp_path / "messy.jsonl"
    messy.write_bytes(("\r\n".join([*lines[:5], "", "  ", *lines[5:]]) + "\r\n").encode())
    assert score_json(messy) == score_json(PENUMBRA)


def test_score_of_two_interleaved_games_names_the_line(tmp_path: Path) -> None:
    pen = PENUMBRA.read_text(encoding="utf-8").splitlines()
    tri = TRICKERION.read_text(encoding="utf-8").splitlines()
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text("\n".join([pen[0], tri[0], pen[1]]) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["score", str(mixed)])
    assert result.exit_code != 0
    assert "line 2" in result.output
    assert "log.game_id" in result.output


def test_export_of_an_unknown_game_fails_and_writes_nothing(
    clean_redis_url: str, tmp_path: Path
) -> None:
    out = tmp_path / "none.jsonl"
    result = runner.invoke(
        app, ["export", "no-such-game", "--out", str(out), "--redis-url", clean_redis_url]
    )
    assert result.exit_code != 0
    assert not out.exists()


def start_serve(redis_url: str, port: int) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "services.cli.main", "serve", "--no-inbox"]
    return subprocess.Popen(
        [*cmd, "--port", str(port), "--redis-url", redis_url],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


async def wait_healthy(client: httpx.AsyncClient) -> None:
    async with asyncio.timeout(30):
        while True:
            try:
                if (await client.get("/healthz")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.1)


async def test_sigkill_of_the_server_mid_stream_then_restart_scores_like_export(
    clean_redis_url: str, tmp_path: Path
) -> None:
    port = free_port()
    games = {
        f"crash-{i}": example_game(f"crash-{i}", (PENUMBRA, TRICKERION)[i % 2]) for i in range(6)
    }
    tokens: dict[str, str] = {}
    procs = [start_serve(clean_redis_url, port)]
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=5) as client:
            await wait_healthy(client)

            async def play(game_id: str) -> None:
                for event in games[game_id]:
                    while True:  # a client retrying the same event across the crash
                        headers = (
                            {"Authorization": f"Bearer {tokens[game_id]}"}
                            if game_id in tokens
                            else {}
                        )
                        try:
                            answer = await client.post(
                                f"/games/{game_id}/events", json=event, headers=headers
                            )
                        except httpx.TransportError:
                            await asyncio.sleep(0.1)
                            continue
                        assert answer.status_code == 201, answer.text
                        tokens.setdefault(game_id, answer.json().get("write_token", ""))
                        break

            for game_id, log in games.items():  # create first: a lost creating 201 loses the token
                first = await client.post(f"/games/{game_id}/events", json=log[0])
                tokens[game_id] = first.json()["write_token"]
                games[game_id] = log[1:]
            players = asyncio.gather(*(play(g) for g in games))
            # killed once a third is stored, not after a fixed time: a fast server could
            # store every event before it, and nothing would be proved
            total = sum(len(log) + 1 for log in games.values())
            async with asyncio.timeout(60):
                while sum([await _version(clean_redis_url, g) for g in games]) < total // 3:
                    await asyncio.sleep(0.02)
            procs[0].send_signal(signal.SIGKILL)
            procs[0].wait(timeout=10)
            stored_at_kill = sum([(await _version(clean_redis_url, g)) for g in games])
            procs.append(start_serve(clean_redis_url, port))
            await players
            await wait_healthy(client)  # the standings below are read from the new process
            for game_id in games:
                out = tmp_path / f"{game_id}.jsonl"
                exported = await asyncio.to_thread(  # the CLI runs its own event loop
                    runner.invoke,
                    app,
                    ["export", game_id, "--out", str(out), "--redis-url", clean_redis_url],
                )
                assert exported.exit_code == 0, exported.output
                offline = await asyncio.to_thread(score_json, out)
                async with asyncio.timeout(20):
                    while True:
                        live = (await client.get(f"/games/{game_id}/standings")).json()
                        if live.get("seq") == sum(1 for _ in out.open()):
                            break
                        await asyncio.sleep(0.1)
                assert live["status"] == offline["status"] == "final"
                assert {p["player_id"]: (p["rank"], p["total"]) for p in live["players"]} == {
                    p["player_id"]: (p["rank"], p["total"]) for p in offline["players"]
                }
        assert 6 < stored_at_kill < total, "the kill did not land mid-stream; nothing was proved"
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
                proc.wait(timeout=20)


async def _version(redis_url: str, game_id: str) -> int:
    from services.adapters.redis.connect import connect
    from services.adapters.redis.eventlog import RedisEventLog
    from services.adapters.redis.keys import Keys

    client = connect(redis_url)  # a single node or a cluster (SCORELEDGER_TEST_REDIS)
    try:
        return await RedisEventLog(client, Keys()).version(game_id)
    finally:
        await client.aclose()
