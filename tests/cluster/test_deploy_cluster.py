"""deploy/cluster/ checked statically (no Docker engine here), and its node configuration
started as a real cluster node: YAML parses, settings names exist, the cluster URL names
compose services, commands exist in the CLI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import redis
import yaml
from typer.main import get_command

from services.adapters.redis.connect import parse_target
from services.adapters.redis.launcher import RedisProcess, free_cluster_port
from services.cli.main import app as cli_app
from services.platform.settings import (
    CommonSettings,
    IngestSettings,
    ProjectorSettings,
    QuerySettings,
)

HERE = Path(__file__).resolve().parents[2] / "deploy" / "cluster"
COMPOSE: dict[str, Any] = yaml.safe_load((HERE / "compose.yaml").read_text())
K8S = [
    d for f in sorted((HERE / "k8s").glob("*.yaml")) for d in yaml.safe_load_all(f.read_text()) if d
]
NODES = [f"redis-{i}" for i in range(1, 7)]


def settings_names() -> set[str]:
    return {
        f"SCORELEDGER_{name}".upper()
        for cls in (CommonSettings, IngestSettings, ProjectorSettings, QuerySettings)
        for name in cls.model_fields
    }


def check_command(args: list[str]) -> None:
    command = get_command(cli_app).commands[args[0]]  # type: ignore[attr-defined]
    command.make_context("scoreledger " + args[0], list(args[1:])).close()


def test_compose_has_six_nodes_a_create_job_and_the_roles_in_the_cluster_profile() -> None:
    services = COMPOSE["services"]
    assert all(s["profiles"] == ["cluster"] for s in services.values())
    for node in NODES:
        assert services[node]["command"][-2:] == ["--cluster-announce-hostname", node]
        assert (
            "./redis-cluster.conf:/usr/local/etc/redis/redis.conf:ro" in services[node]["volumes"]
        )
    create = services["redis-cluster-create"]
    assert set(create["depends_on"]) == set(NODES)
    assert all(f"{n}:6379" in create["command"][0] for n in NODES)
    for role in ("ingest", "projector", "query"):
        check_command(services[role]["command"])
        env = services[role]["environment"]
        assert set(env) <= settings_names()
        target = parse_target(env["SCORELEDGER_REDIS_URL"])
        assert target.cluster
        assert {host for host, _ in target.nodes} <= set(NODES)


def test_k8s_settings_exist_and_the_cluster_url_parses() -> None:
    (config,) = [d for d in K8S if d["kind"] == "ConfigMap"]
    assert set(config["data"]) <= settings_names()
    assert parse_target(config["data"]["SCORELEDGER_REDIS_URL"]).cluster
    assert int(config["data"]["SCORELEDGER_SHARDS"]) >= 3 * 4
    workloads = {
        d["metadata"]["name"]: d for d in K8S if d["kind"] in ("Deployment", "StatefulSet")
    }
    assert workloads["scoreledger-projector"]["spec"]["replicas"] > 1
    assert workloads["scoreledger-ingest"]["spec"]["replicas"] > 1
    for workload in workloads.values():
        (container,) = workload["spec"]["template"]["spec"]["containers"]
        check_command(container["args"])
        assert container["resources"]["limits"]["memory"]


@pytest.mark.redis
def test_the_node_configuration_starts_a_cluster_node(tmp_path: Path) -> None:
    conf = (HERE / "redis-cluster.conf").read_text().replace("/data", str(tmp_path))
    (tmp_path / "redis.conf").write_text(conf)
    node = RedisProcess(
        tmp_path,
        port=free_cluster_port(),
        config=tmp_path / "redis.conf",
        extra=["--cluster-announce-hostname", "redis-1"],
    ).start()
    port = node.port
    try:
        client = redis.Redis(port=port, decode_responses=True)
        assert client.info("cluster")["cluster_enabled"] == 1
        assert client.config_get("appendonly") == {"appendonly": "yes"}
        assert client.config_get("cluster-node-timeout") == {"cluster-node-timeout": "5000"}
        client.close()
    finally:
        node.stop()
