"""Every Redis-facing CLI command on a local Redis Cluster (`redis+cluster://h:p,...`, or a plain
node URL with `SCORELEDGER_REDIS_CLUSTER=true`): `export`, `simulate --inbox`, `demo` with
REDIS_URL on a cluster, `demo --cluster` (a throwaway 3-master cluster it starts and stops
itself), and `serve` + `publish` over the cluster. Each command's results are checked against
the offline fold (`scoreledger score`) or read back from the cluster."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import redis
from typer.testing import CliRunner

from services.adapters.redis.connect import parse_target
from services.adapters.redis.keys import Keys
from services.adapters.redis.localcluster import slot_ranges
from services.cli.demo_games import example_logs
from services.cli.main import app
from services.cli.remote import read_log
from tests.cli.conftest import run_module, store_log
from tests.procs import wait_listening
from tests.redis_fixture import free_port, sync_client

pytestmark = pytest.mark.redis
ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


def _env(**extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("REDIS_URL", "SCORELEDGER_REDIS_URL", "SCORELEDGER_REDIS_CLUSTER")
    }
    env["COLUMNS"] = "120"
    env.update(extra)
    return env


def _cli(*args: str, env: dict[str, str], timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return run_module("services.cli.main", *args, env=env, timeout=timeout)


def _scores() -> list[dict[str, object]]:
    out = []
    for log in example_logs():
        score = _cli("score", str(log), "--json", env=_env(), timeout=60)
        assert score.returncode == 0, score.stderr
        out.append(json.loads(score.stdout))
    return out


def test_slot_ranges_cover_every_slot_once_as_redis_cli_splits_them(cluster_url: str) -> None:
    for masters in (1, 3, 5, 7):
        ranges = slot_ranges(masters)
        covered = [s for first, last in ranges for s in range(first, last + 1)]
        assert covered == list(range(16384)), masters
    client = sync_client(cluster_url)  # created by `redis-cli --cluster create` (3 primaries)
    try:
        made = sorted((int(a), int(b)) for a, b in client.cluster_slots())
    finally:
        client.close()
    print(f"redis-cli split {made}, ours {slot_ranges(3)}")
    assert made == slot_ranges(3)


def test_export_on_a_cluster_by_url_and_by_setting(clean_cluster_url: str, tmp_path: Path) -> None:
    log = Path(__file__).parent / "data" / "trickerion-demo.jsonl"
    store_log(clean_cluster_url, log)
    original = runner.invoke(app, ["score", str(log), "--json"])
    # a redis+cluster:// URL, then one node's plain URL with SCORELEDGER_REDIS_CLUSTER=true
    host, port = parse_target(clean_cluster_url).nodes[-1]
    ways = [
        (clean_cluster_url, _env()),
        (f"redis://{host}:{port}/0", _env(SCORELEDGER_REDIS_CLUSTER="true")),
    ]
    for url, env in ways:
        exported = _cli("export", "tr-demo-1", "--redis-url", url, env=env, timeout=60)
        assert exported.returncode == 0, exported.stderr
        back = tmp_path / "back.jsonl"
        back.write_text(exported.stdout, encoding="utf-8")
        print(f"export via {url}: {len(exported.stdout.splitlines())} events")
        assert len(exported.stdout.splitlines()) == len(read_log(log))
        again = runner.invoke(app, ["score", str(back), "--json"])
        assert json.loads(again.stdout) == json.loads(original.stdout)


def test_simulate_to_the_inbox_of_a_cluster(clean_cluster_url: str) -> None:
    sent = _cli(
        "simulate", "--tables", "3", "--seed", "5", "--inbox", clean_cluster_url,
        "--rate", "20000", env=_env(), timeout=120,
    )  # fmt: skip
    assert sent.returncode == 0, sent.stderr
    found = re.search(r"sent (\d+) events from 3 tables", sent.stderr)
    assert found, sent.stderr
    n = int(found.group(1))
    client = sync_client(clean_cluster_url)
    try:
        entries = client.xrange(Keys().inbox)
    finally:
        client.close()
    print(f"simulate --inbox: sent {n}, inbox entries {len(entries)}")
    assert n == len(entries) > 0
    seqs: dict[str, list[int]] = {}
    for _, fields in entries:
        seqs.setdefault(fields[b"game"].decode(), []).append(json.loads(fields[b"data"])["seq"])
    assert len(seqs) == 3
    assert all(s == list(range(1, len(s) + 1)) for s in seqs.values())  # each game in seq order


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_demo_on_a_cluster_given_by_redis_url(clean_cluster_url: str) -> None:
    demo = _cli("demo", "--json", env=_env(REDIS_URL=clean_cluster_url))
    assert demo.returncode == 0, demo.stderr[-3000:]
    assert f"Redis: {clean_cluster_url} (REDIS_URL)" in demo.stderr
    finals = [json.loads(line) for line in demo.stdout.splitlines()]
    expected = _scores()
    print(f"demo on REDIS_URL cluster: {len(finals)} games, {len(expected)} scored offline")
    assert len(finals) == len(expected) >= 2
    for final, score in zip(finals, expected, strict=True):
        final.pop("game_id")
        score.pop("game_id")  # the demo renames games on a shared Redis
        assert final == score


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_demo_cluster_starts_and_stops_a_throwaway_cluster() -> None:
    demo = _cli("demo", "--cluster", "--json", env=_env())
    assert demo.returncode == 0, demo.stderr[-3000:]
    assert "(a throwaway 3-master Redis Cluster)" in demo.stderr
    url = demo.stderr.split("Redis: ")[1].split()[0]
    nodes = parse_target(url).nodes
    assert len(nodes) == 3
    finals = [json.loads(line) for line in demo.stdout.splitlines()]
    assert finals == _scores()
    still_up = 0
    for host, port in nodes:  # every node stopped by its own handle
        node = redis.Redis(host=host, port=port, socket_connect_timeout=0.5)
        try:
            node.ping()
            still_up += 1
        except redis.ConnectionError:
            pass
        finally:
            node.close()
    print(f"demo --cluster: {len(finals)} games equal `score`, nodes still up {still_up} of 3")
    assert still_up == 0


def test_serve_and_publish_on_a_cluster(
    clean_cluster_url: str, trickerion_log: Path, tmp_path: Path
) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "services.cli.main", "serve", "--port", str(port),
         "--redis-url", clean_cluster_url],
        cwd=ROOT, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        wait_listening(port, proc)
        with httpx.Client(base_url=url) as client:
            assert client.get("/healthz").status_code == 200
        published = runner.invoke(app, ["publish", str(trickerion_log), "--url", url])
        assert published.exit_code == 0, published.output
        expected = json.loads(runner.invoke(app, ["score", str(trickerion_log), "--json"]).stdout)
        with httpx.Client(base_url=url) as client:
            for _ in range(200):
                body = client.get("/games/tr-demo-1/standings").json()
                if body.get("seq") == len(read_log(trickerion_log)):
                    break
                time.sleep(0.05)
        print(f"serve + publish on a cluster: projected seq {body.get('seq')}")
        assert body["seq"] == len(read_log(trickerion_log))
        assert [p["total"] for p in body["players"]] == [p["total"] for p in expected["players"]]
    finally:
        proc.terminate()
        proc.wait(timeout=20)
