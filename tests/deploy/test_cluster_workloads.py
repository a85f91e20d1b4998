"""deploy/cluster/k8s workloads log in to Redis as their role's ACL user, with the password from
the Secret, exactly as the single-node deploy/k8s workloads do (they had no credentials)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def _redis_env(path: Path) -> dict[str, Any]:
    (workload,) = [
        d
        for d in yaml.safe_load_all(path.read_text())
        if d and d["kind"] in ("Deployment", "StatefulSet")
    ]
    (container,) = workload["spec"]["template"]["spec"]["containers"]
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in container.get("env", [])}


def test_cluster_workloads_use_their_roles_acl_user_like_the_single_node_ones() -> None:
    for role in ("ingest", "projector"):
        cluster = _redis_env(DEPLOY / "cluster" / "k8s" / f"{role}.yaml")
        single = _redis_env(DEPLOY / "k8s" / f"{role}.yaml")
        print(f"{role}: cluster env {sorted(cluster)}")
        assert cluster["SCORELEDGER_REDIS_USERNAME"] == single["SCORELEDGER_REDIS_USERNAME"] == role
        assert cluster["SCORELEDGER_REDIS_PASSWORD"] == single["SCORELEDGER_REDIS_PASSWORD"]
