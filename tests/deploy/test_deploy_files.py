"""deploy/ checked statically (no Docker engine here): YAML parses, settings names exist in
`services/platform/settings/`, probe and healthcheck paths exist in the app, commands exist in the CLI.
Source: docs/development.md (deploy files can only be checked statically here)."""

from __future__ import annotations

import fnmatch
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.main import get_command

from services.adapters.redis.keys import Keys
from services.adapters.redis.lease import fence_key, lease_key
from services.adapters.redis.ownership import MEMBERS_KEY
from services.bootstrap import Roles, build_app
from services.cli.main import app as cli_app
from services.platform.settings import (
    CommonSettings,
    IngestSettings,
    ProjectorSettings,
    QuerySettings,
)
from tests.docs.anchors import broken

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
    app = build_app(Roles(ingest=False, inbox=False, projector=False))
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
    assert "docs/operating/redis.md#persistence" in text
    assert broken("docs/operating/redis.md#persistence") is None


def test_compose_services_and_redis_with_aof_config() -> None:
    services = COMPOSE["services"]
    assert {"redis", "ingest", "projector", "query"} <= set(services)
    redis = services["redis"]
    assert any(v.startswith("./redis.conf:") for v in redis["volumes"])
    assert "exec redis-server /usr/local/etc/redis/redis.conf" in " ".join(redis["command"])
    for name in ("ingest", "projector", "query"):
        assert services[name]["depends_on"]["redis"]["condition"] == "service_healthy"
        assert services[name]["build"]["dockerfile"] == "deploy/Dockerfile"


@pytest.mark.parametrize("name", ["ingest", "projector", "query"])
def test_compose_env_commands_and_healthchecks(name: str) -> None:
    service = COMPOSE["services"][name]
    unknown = set(service["environment"]) - _env_names()
    assert not unknown, f"{name}: env vars not in services/platform/settings/: {unknown}"
    _check_command(service["command"])
    probe = " ".join(service["healthcheck"]["test"])
    path = re.search(r"http://127\.0\.0\.1:8000(/[a-z]+)", probe)
    assert path is not None
    assert path[1] in _app_paths()


def test_k8s_configmap_names_are_settings() -> None:
    configmaps = [d for d in K8S if d["kind"] == "ConfigMap"]
    assert len(configmaps) == 1
    unknown = set(configmaps[0]["data"]) - _env_names()
    assert not unknown, f"ConfigMap keys not in services/platform/settings/: {unknown}"


def test_k8s_deployment_per_service_with_probes_and_cli_args() -> None:
    deployments = {d["metadata"]["name"]: d for d in _deployments()}
    assert set(deployments) == {
        "scoreledger-ingest",
        "scoreledger-projector",
        "scoreledger-query",
        "scoreledger-archiver",
    }
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


def _system_deps(tmp_path: Path, mode: str, present: tuple[str, ...] = ()) -> tuple[int, str]:
    """Run deploy/scripts/system-deps.sh with a PATH of stubs only: `id` (not root), `sudo`
    (runs its command), `apt-get` (records its arguments), and `present` as installed
    binaries. Returns (exit code, the recorded apt-get calls)."""
    stubs, calls = tmp_path / f"bin-{mode or 'default'}", tmp_path / f"apt-{mode or 'default'}"
    stubs.mkdir()
    scripts = {
        "id": "echo 1000",
        "sudo": 'exec "$@"',
        "apt-get": f'echo "$@" >> {calls}',
        **{name: "exit 0" for name in present},
    }
    for name, body in scripts.items():
        (stubs / name).write_text(f"#!/bin/bash\n{body}\n")
        (stubs / name).chmod(0o755)
    env = {"PATH": str(stubs), "HOME": str(tmp_path)}
    script = DEPLOY / "scripts" / "system-deps.sh"
    done = subprocess.run(
        ["/bin/bash", str(script), *([mode] if mode else [])], env=env, check=False
    )
    return done.returncode, calls.read_text() if calls.exists() else ""


@pytest.mark.parametrize(
    ("mode", "wanted"),
    [
        ("", "redis-server chromium fonts-dejavu-core wrk postgresql"),  # make test, .ci/run
        ("bench", "redis-server wrk valgrind"),  # valgrind: the instructions row
        ("redis", "redis-server"),
    ],
)
def test_system_deps_installs_what_its_mode_needs(tmp_path: Path, mode: str, wanted: str) -> None:
    code, calls = _system_deps(tmp_path, mode)
    assert code == 0
    assert calls.splitlines() == ["update -qq", f"install -y -qq {wanted}"]


def test_system_deps_installs_nothing_that_is_there(tmp_path: Path) -> None:
    present = ("redis-server", "chromium", "wrk", "pg_ctlcluster")
    code, calls = _system_deps(tmp_path, "", present=present)
    assert (code, calls) == (0, "")


# --- docs/decisions/0019-hostile-input-at-every-door.md: least-privilege Redis, checked statically (the live check: test_redis_acl.py) ---
TEMPLATE = (DEPLOY / "users.acl.template").read_text()
EACH_INTEGRATION = "user integration-${NAME} "
"""The template line redis-acl.sh writes once per integration; read here for `table-7`."""
ACL_USERS = {
    line.split()[1]: line.split()[2:]
    for line in TEMPLATE.replace("${NAME}", "table-7").splitlines()
    if line.startswith("user ")
}
SAMPLE_KEYS = [
    *(
        getattr(Keys(16), name)("g-1")
        for name in ("game_stream", "event_ids", "names", "projection", "ledger")
    ),
    *(
        getattr(Keys(16), name)(3)
        for name in ("feed", "game_index", "checkpoint", "changes", "held")
    ),
    Keys(16).write_token("g-1"),
    Keys(16).tier_lock("g-1"),
    Keys(16).inbox,
    Keys(16).integration_inbox("table-7"),
    Keys(16).dead_letter,
    MEMBERS_KEY,  # shard ownership of several projectors
    lease_key(Keys(16), 3),
    fence_key(Keys(16), 3),
    Keys(16).dead_letter_once("inbox:1-0"),
    Keys(16).integration_dead_letters("table-7"),
    Keys(16).dead_letter_scrubbed,
    *(
        getattr(Keys(16), name)("cup-1")
        for name in ("tournament_stream", "tournament_ids", "tournament_token")
    ),
    Keys(16).approval_schedule(),
    Keys(16).tournament_leagues("cup-1"),
    Keys(16).side_names("cup-1"),
    Keys(16).side_names_index(""),
    Keys(16).side_index(""),
    *(Keys(16).webhooks(part) for part in ("endpoints", "ckpt", "seen")),
    *(Keys(16).webhooks(part, "ep-1") for part in ("q", "d", "co", "log", "stats")),
]


# Commands that change no key (scripts: only what the user may call runs inside them).
QUERY_READS = {"ping", "evalsha", "eval", "evalsha_ro", "eval_ro", "script", "get", "hget", "hmget"}
QUERY_READS |= {"hgetall", "lrange", "llen", "xlen", "xrange", "xrevrange", "xread", "zrange"}
QUERY_READS |= {"zrevrange", "zcard", "zscore", "exists", "hlen", "hscan", "smembers"}


def _key_patterns(rules: list[str]) -> list[str]:
    return [r.split("~", 1)[1] for r in rules if "~" in r]


def test_redis_listens_on_loopback_unless_told_with_protected_mode_and_acl() -> None:
    lines = [line.split() for line in (DEPLOY / "redis.conf").read_text().splitlines()]
    settings = {words[0]: words[1:] for words in lines if words and not words[0].startswith("#")}
    assert settings["bind"] == ["127.0.0.1", "-::1"]
    assert settings["protected-mode"] == ["yes"]
    assert settings["aclfile"] == ["/run/redis/users.acl"]


def test_acl_has_one_user_per_role_and_no_default_access() -> None:
    assert {"default", "integration", "ingest", "projector", "query", "admin"} <= set(ACL_USERS)
    assert "off" in ACL_USERS["default"]
    assert "-@all" in ACL_USERS["default"]
    for user, rules in ACL_USERS.items():
        if user == "integration-table-7":  # one line per integration, its digests rendered
            assert rules[1] == "${INTEGRATION_NAME}"
        elif user not in {"default", "health"}:
            assert rules[1] == "${" + user.upper() + "}", (
                user
            )  # a digest, rendered, never a password


def test_an_integration_may_only_xadd_the_inbox_key() -> None:
    rules = ACL_USERS["integration"]
    assert [r for r in rules if r.startswith("+")] == ["+ping", "+xadd"]
    assert _key_patterns(rules) == [Keys(16).inbox]


def test_an_integration_user_may_only_xadd_its_own_stream() -> None:
    # Hostile input (docs/decisions/0019-hostile-input-at-every-door.md): (hostile integrations): the line redis-acl.sh repeats per integration
    (line,) = [x for x in TEMPLATE.splitlines() if x.startswith(EACH_INTEGRATION)]
    words = ACL_USERS["integration-table-7"]
    opened = next(i for i, w in enumerate(words) if w.startswith("("))
    rules, selector = words[:opened], words[opened:]
    assert rules[0] == "on"
    assert [r for r in rules if r.startswith(("+", "-", "&", "%"))] == ["-@all", "+ping", "+xadd"]
    assert _key_patterns(rules) == ["sl:inbox:table-7"] == [Keys(16).integration_inbox("table-7")]
    # its own dead letters, read-only (a selector): reads, no write command
    own = Keys(16).integration_dead_letters("table-7")
    assert selector == [f"(%R~{own}", "+xrange", "+xrevrange", "+xread", "+xlen)"]
    assert line.endswith(
        " ~sl:inbox:${NAME} (%R~{sl:deadletter}:inbox:${NAME} +xrange +xrevrange +xread +xlen)"
    )
    assert "sl:inbox:*" in _key_patterns(ACL_USERS["ingest"])  # ingest reads every stream


def test_every_acl_key_pattern_names_real_keys_and_tokens_are_ingest_only() -> None:
    for user, rules in ACL_USERS.items():
        for pattern in _key_patterns(rules):
            if user != "admin":
                assert any(fnmatch.fnmatchcase(k, pattern) for k in SAMPLE_KEYS), (user, pattern)
    token = Keys(16).write_token("g-1")
    readers = {
        u
        for u, rules in ACL_USERS.items()
        if any(fnmatch.fnmatchcase(token, p) for p in _key_patterns(rules))
    }
    # the archiver carries a sealed game's digest into the archive and deletes it; it has no
    # SET but on its games' tier locks, so it cannot write one
    # (tests/deploy/test_redis_acl_archive.py)
    assert readers == {"ingest", "admin", "archiver"}
    archiver = " ".join(ACL_USERS["archiver"])
    root, _, selectors = archiver.partition("(")
    assert not any(r in ("+set", "+@write", "+@all") for r in root.split())
    assert selectors == "~sl:tierlock:* +evalsha +eval +get +set +del)"
    organiser = Keys(16).tournament_token("cup-1")
    readers = {
        u
        for u, rules in ACL_USERS.items()
        if any(fnmatch.fnmatchcase(organiser, p) for p in _key_patterns(rules))
    }
    assert readers == {"ingest", "admin"}, organiser
    query = {r[1:].split("|")[0] for r in ACL_USERS["query"] if r.startswith("+")}
    assert query <= QUERY_READS  # query reads: no write command at all


def test_compose_publishes_no_redis_port_and_each_service_has_its_acl_user() -> None:
    services = COMPOSE["services"]
    assert "ports" not in services["redis"]
    assert services["redis"]["networks"] == ["backend"]
    assert COMPOSE["networks"]["backend"]["internal"] is True
    for name in ("ingest", "projector", "query"):
        env = services[name]["environment"]
        assert env["SCORELEDGER_REDIS_USERNAME"] == name
        assert name in ACL_USERS
        assert env["SCORELEDGER_REDIS_PASSWORD"].startswith(
            "${REDIS_" + name.upper() + "_PASSWORD:?"
        )
        assert "@" not in env["SCORELEDGER_REDIS_URL"]  # no credentials in the URL
    assert "ports" not in services["projector"]
    start = " ".join(services["redis"]["command"])  # renders the ACL where redis.conf reads it
    assert "redis-acl.sh /usr/local/etc/redis/users.acl.template /run/redis/users.acl" in start
    assert services["redis"]["tmpfs"] == ["/run/redis"]
    assert (
        "./users.acl.template:/usr/local/etc/redis/users.acl.template:ro"
        in services["redis"]["volumes"]
    )


def test_compose_gives_the_acl_and_ingest_one_integration_list() -> None:
    # a name in one list only is a user without a reader, or a stream nobody may write
    services = COMPOSE["services"]
    acl = services["redis"]["environment"]["REDIS_ACL_INTEGRATIONS"]
    assert acl == services["ingest"]["environment"]["SCORELEDGER_INBOX_INTEGRATIONS"]
    assert acl == "${INBOX_INTEGRATIONS:-}"
    assert services["redis"]["env_file"] == [{"path": ".env", "required": False}]


def test_k8s_credentials_come_from_a_secret_never_the_configmap() -> None:
    (configmap,) = [d for d in K8S if d["kind"] == "ConfigMap"]
    assert not [k for k in configmap["data"] if "PASSWORD" in k or "USERNAME" in k]
    assert "@" not in configmap["data"]["SCORELEDGER_REDIS_URL"]
    for deployment in _deployments():
        (container,) = deployment["spec"]["template"]["spec"]["containers"]
        env = {e["name"]: e for e in container["env"]}
        role = env["SCORELEDGER_REDIS_USERNAME"]["value"]
        assert deployment["metadata"]["name"] == f"scoreledger-{role}"
        assert role in ACL_USERS
        secret = env["SCORELEDGER_REDIS_PASSWORD"]["valueFrom"]["secretKeyRef"]
        assert secret == {"name": "scoreledger-redis", "key": f"{role}-password"}


def test_k8s_pods_run_restricted() -> None:
    for deployment in _deployments():
        pod = deployment["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True
        assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
        assert pod["automountServiceAccountToken"] is False
        (container,) = pod["containers"]
        context = container["securityContext"]
        assert context["capabilities"] == {"drop": ["ALL"]}
        assert context["readOnlyRootFilesystem"] is True
        assert context["allowPrivilegeEscalation"] is False
        assert context["runAsNonRoot"] is True


def test_k8s_network_policies_deny_by_default_and_open_only_the_doors_and_redis() -> None:
    policies = {d["metadata"]["name"]: d["spec"] for d in K8S if d["kind"] == "NetworkPolicy"}
    deny = policies["scoreledger-default-deny"]
    assert deny["policyTypes"] == ["Ingress", "Egress"]
    assert "ingress" not in deny
    assert "egress" not in deny
    for deployment in _deployments():
        labels = deployment["spec"]["template"]["metadata"]["labels"]
        assert deny["podSelector"]["matchLabels"].items() <= labels.items()
    (doors,) = policies["scoreledger-http"]["podSelector"]["matchExpressions"]
    assert set(doors["values"]) == {"scoreledger-ingest", "scoreledger-query"}  # not the projector
    egress = policies["scoreledger-egress-redis-dns"]["egress"]
    assert {p["port"] for rule in egress for p in rule["ports"]} == {6379, 53}
    (redis_in,) = policies["redis-clients"]["ingress"]
    assert [p["port"] for p in redis_in["ports"]] == [6379]


def _conf_settings(path: Path) -> dict[str, str]:
    """A redis.conf's directives (last one wins, as Redis reads them), names lower-cased."""
    out: dict[str, str] = {}
    for line in path.read_text().splitlines():
        words = line.split()
        if words and not words[0].startswith("#"):
            out[words[0].lower()] = " ".join(words[1:])
    return out


def _bytes(size: str) -> int:
    """Redis's memory units (`2gb`, `512mb`, `100k`...) in bytes."""
    number, unit = re.fullmatch(r"(\d+)([a-z]*)", size.lower()).groups()  # type: ignore[union-attr]
    scale = {"": 1, "k": 1000, "kb": 1024, "m": 10**6, "mb": 2**20, "g": 10**9, "gb": 2**30}
    return int(number) * scale[unit]


def _shipped_redis_confs() -> list[Path]:
    """Every Redis config the deploy files start a redis-server with: each compose service of a
    redis image mounts one (its command names the mount point), checked to exist here."""
    confs: set[Path] = set()
    for compose in sorted(DEPLOY.rglob("compose.yaml")):
        for name, service in yaml.safe_load(compose.read_text())["services"].items():
            command = " ".join(map(str, service.get("command") or []))
            if "redis-server" not in command:
                continue
            mounts = [str(v).split(":") for v in service.get("volumes", [])]
            conf = [src for src, dst, *_ in mounts if dst in command and src.endswith(".conf")]
            assert conf, f"{compose}: {name} starts redis-server without a shipped config"
            confs |= {(compose.parent / c).resolve() for c in conf}
    return sorted(confs | set(DEPLOY.rglob("*.conf")))


def test_every_shipped_redis_config_bounds_memory_and_never_evicts() -> None:
    """A Redis without `maxmemory` grows until the kernel kills it (an integration's 40 MB
    entries grew one by 243 MB in 8.5 s); with it and `noeviction` a full Redis refuses writes
    (503, retried) and drops nothing of the log. One argument is bounded too."""
    confs = _shipped_redis_confs()
    assert {c.name for c in confs} >= {"redis.conf", "redis-cluster.conf"}
    for conf in confs:
        settings = _conf_settings(conf)
        assert settings.get("maxmemory-policy") == "noeviction", conf
        assert _bytes(settings.get("maxmemory", "0")) >= 256 * 2**20, conf
        assert _bytes(settings.get("proto-max-bulk-len", "512mb")) <= 8 * 2**20, conf


def test_compose_gives_redis_room_above_its_maxmemory() -> None:
    """The container's limit is 1.5 x maxmemory (the AOF rewrite's fork copies changed pages):
    a limit at maxmemory would have the kernel kill Redis before Redis refuses a write."""
    for compose in sorted(DEPLOY.rglob("compose.yaml")):
        for name, service in yaml.safe_load(compose.read_text())["services"].items():
            if "redis-server" in " ".join(map(str, service.get("command") or [])):
                conf = compose.parent / (
                    "redis.conf" if compose.parent == DEPLOY else "redis-cluster.conf"
                )
                maxmemory = _bytes(_conf_settings(conf)["maxmemory"])
                limit = str(service["mem_limit"]).lower().removesuffix("b")  # compose: 1024-based
                assert _bytes(limit + "b") >= 1.5 * maxmemory, (compose, name)


def test_compose_archive_profile_is_opt_in_with_least_privilege_roles() -> None:
    services = COMPOSE["services"]
    archive = {n for n, s in services.items() if "archive" in s.get("profiles", [])}
    assert archive == {"postgres", "archive-migrate", "archiver"}
    for name in ("ingest", "projector", "query"):
        assert "profiles" not in services[name]
    text = (DEPLOY / "compose.yaml").read_text()
    for name in archive:  # a deployment without the profile needs none of its variables
        assert ":?" not in yaml.safe_dump(services[name]), name
    archiver = services["archiver"]
    _check_command(archiver["command"])
    assert "--archiver" in archiver["command"]
    assert archiver["environment"]["SCORELEDGER_REDIS_USERNAME"] == "archiver" in ACL_USERS
    assert "scoreledger_archiver:" in archiver["environment"]["SCORELEDGER_ARCHIVE_URL"]
    migrate = services["archive-migrate"]
    _check_command(migrate["command"])
    assert "scoreledger_owner:" in migrate["environment"]["SCORELEDGER_ARCHIVE_URL"]
    assert (
        archiver["depends_on"]["archive-migrate"]["condition"] == "service_completed_successfully"
    )
    for name in ("ingest", "query", "archiver", "archive-migrate"):
        unknown = set(services[name]["environment"]) - _env_names()
        assert not unknown, (name, unknown)
    assert "ports" not in services["postgres"]
    assert services["postgres"]["networks"] == ["backend"]
    mounts = " ".join(services["postgres"]["volumes"])
    assert "./postgres/roles.sql:/usr/local/share/scoreledger/roles.sql" in mounts
    assert (
        "/usr/local/share/scoreledger/roles.sql" in (DEPLOY / "postgres/init-roles.sh").read_text()
    )
    assert "REDIS_ACL_ARCHIVER" in services["redis"]["environment"]
    assert "SCORELEDGER_ARCHIVE_READER_URL" in text


def test_k8s_archiver_job_and_archive_secret_roles() -> None:
    def env_of(container: dict[str, Any]) -> dict[str, Any]:
        return {e["name"]: e for e in container.get("env", [])}

    deployments = {d["metadata"]["name"]: d for d in _deployments()}
    (archiver,) = deployments["scoreledger-archiver"]["spec"]["template"]["spec"]["containers"]
    assert "--archiver" in archiver["args"]
    ref = env_of(archiver)["SCORELEDGER_ARCHIVE_URL"]["valueFrom"]["secretKeyRef"]
    assert ref == {"name": "scoreledger-archive", "key": "archiver-url"}
    for name in ("scoreledger-ingest", "scoreledger-query"):  # readers; the archive optional
        (container,) = deployments[name]["spec"]["template"]["spec"]["containers"]
        ref = env_of(container)["SCORELEDGER_ARCHIVE_URL"]["valueFrom"]["secretKeyRef"]
        assert ref == {"name": "scoreledger-archive", "key": "reader-url", "optional": True}
    (job,) = [d for d in K8S if d["kind"] == "Job"]
    (migrate,) = job["spec"]["template"]["spec"]["containers"]
    _check_command(migrate["args"])
    assert migrate["args"] == ["migrate-archive"]
    ref = env_of(migrate)["SCORELEDGER_ARCHIVE_URL"]["valueFrom"]["secretKeyRef"]
    assert ref == {"name": "scoreledger-archive", "key": "owner-url"}
    assert job["spec"]["template"]["spec"]["securityContext"]["runAsNonRoot"] is True
    policies = {d["metadata"]["name"]: d["spec"] for d in K8S if d["kind"] == "NetworkPolicy"}
    archive = policies["scoreledger-egress-archive"]
    assert [p["port"] for rule in archive["egress"] for p in rule["ports"]] == [5432]
    (selected,) = archive["podSelector"]["matchExpressions"]
    assert "scoreledger-projector" not in selected["values"]  # the projector never reads it
