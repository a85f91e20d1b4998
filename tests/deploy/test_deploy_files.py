"""deploy/ checked statically (no Docker engine here): YAML parses, settings names exist in
`services/settings.py`, probe and healthcheck paths exist in the app, commands exist in the CLI.
Source: research/anchors.md §4.3 (deploy files can only be checked statically here)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.main import get_command

from services.cli.main import app as cli_app
from services.query.app import create_app
from services.settings import CommonSettings, IngestSettings, ProjectorSettings, QuerySettings

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
COMPOSE = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
K8S = [
    doc
    for f in sorted((DEPLOY / "k8s").glob("*.yaml"))
    for doc in yaml.safe_load_all(f.read_text())
    if doc
]


def _env_names() -> set[str]:
    names = {"REDIS_URL"}
    for cls in (CommonSettings, IngestSettings, ProjectorSettings, QuerySettings):
        prefix = cls.model_config.get("env_prefix", "")
        names |= {f"{prefix}{field}".upper() for field in cls.model_fields}
    return names


def _app_paths() -> set[str]:
    app = create_app(QuerySettings())
    return set(app.openapi()["paths"]) | {"/metrics"}


def _check_command(args: list[str]) -> None:
    """`args` must parse as a `scoreledger` command line (unknown command/option -> error)."""
    command = get_command(cli_app).commands[args[0]]  # type: ignore[attr-defined]
    context = command.make_context(
        "scoreledger " + args[0], list(args[1:]), resilient_parsing=False
    )
    context.close()


def test_command_check_rejects_unknown_commands_and_options() -> None:
    _check_command(["serve", "--no-query"])
    with pytest.raises(KeyError):
        _check_command(["run", "--query"])
    with pytest.raises(Exception, match="No such option"):
        _check_command(["serve", "--queries"])


def _deployments() -> list[dict[str, Any]]:
    return [d for d in K8S if d["kind"] == "Deployment"]


def test_redis_conf_turns_aof_on_and_explains_fsync() -> None:
    text = (DEPLOY / "redis.conf").read_text()
    settings = dict(
        line.split(None, 1) for line in text.splitlines() if line and not line.startswith("#")
    )
    assert settings["appendonly"] == "yes"
    assert settings["appendfsync"] in {"everysec", "always"}
    assert "tech.md §3.7" in text


def test_compose_services_and_redis_with_aof_config() -> None:
    services = COMPOSE["services"]
    assert {"redis", "ingest", "projector", "query"} <= set(services)
    redis = services["redis"]
    assert any(v.startswith("./redis.conf:") for v in redis["volumes"])
    assert redis["command"][-1] == "/usr/local/etc/redis/redis.conf"
    for name in ("ingest", "projector", "query"):
        assert services[name]["depends_on"]["redis"]["condition"] == "service_healthy"
        assert services[name]["build"]["dockerfile"] == "deploy/Dockerfile"


@pytest.mark.parametrize("name", ["ingest", "projector", "query"])
def test_compose_env_commands_and_healthchecks(name: str) -> None:
    service = COMPOSE["services"][name]
    unknown = set(service["environment"]) - _env_names()
    assert not unknown, f"{name}: env vars not in services/settings.py: {unknown}"
    _check_command(service["command"])
    probe = " ".join(service["healthcheck"]["test"])
    path = re.search(r"http://127\.0\.0\.1:8000(/[a-z]+)", probe)
    assert path is not None
    assert path[1] in _app_paths()


def test_k8s_configmap_names_are_settings() -> None:
    configmaps = [d for d in K8S if d["kind"] == "ConfigMap"]
    assert len(configmaps) == 1
    unknown = set(configmaps[0]["data"]) - _env_names()
    assert not unknown, f"ConfigMap keys not in services/settings.py: {unknown}"


def test_k8s_deployment_per_service_with_probes_and_cli_args() -> None:
    deployments = {d["metadata"]["name"]: d for d in _deployments()}
    assert set(deployments) == {"scoreledger-ingest", "scoreledger-projector", "scoreledger-query"}
    paths = _app_paths()
    for deployment in deployments.values():
        (container,) = deployment["spec"]["template"]["spec"]["containers"]
        _check_command(container["args"])
        assert container["envFrom"] == [{"configMapRef": {"name": "scoreledger"}}]
        for probe in ("livenessProbe", "readinessProbe"):
            assert container[probe]["httpGet"]["path"] in paths
        assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
        labels = deployment["spec"]["template"]["metadata"]["labels"]
        assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert (
        deployments["scoreledger-projector"]["spec"]["replicas"] == 1
    )  # one ordered reader per shard


def test_k8s_services_select_deployments() -> None:
    services = [d for d in K8S if d["kind"] == "Service"]
    labels = [d["spec"]["template"]["metadata"]["labels"] for d in _deployments()]
    assert {s["metadata"]["name"] for s in services} >= {"scoreledger-query"}
    for service in services:
        assert any(service["spec"]["selector"].items() <= lab.items() for lab in labels)


def test_dockerfile_multistage_frozen_nonroot_cli_entrypoint() -> None:
    text = (DEPLOY / "Dockerfile").read_text()
    assert len(re.findall(r"^FROM ", text, re.M)) >= 2
    assert "uv sync --frozen --no-dev" in text
    user = re.findall(r"^USER (\S+)", text, re.M)
    assert user
    assert not user[-1].startswith(("root", "0"))
    assert 'ENTRYPOINT ["scoreledger"]' in text
    cmd = re.search(r"^CMD (\[.*\])", text, re.M)
    assert cmd is not None
    _check_command(yaml.safe_load(cmd[1]))
    for path in re.findall(r"^COPY (?!--from)(\S+)", text, re.M):
        assert (DEPLOY.parent / path).exists(), path


def test_system_deps_script_is_kept() -> None:
    script = DEPLOY / "scripts" / "system-deps.sh"
    assert "redis-server" in script.read_text()
    assert shlex.split("bash " + str(script))
