"""docker/: the compose file parses and wires Neo4j and the API with health checks; the
Dockerfile builds in stages and runs unprivileged. (No Docker engine is needed to check this.)"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from engrava_graph.graph.server import CURRENT_VERSION

DOCKER = Path(__file__).resolve().parents[2] / "docker"


def test_compose_runs_neo4j_and_the_api_with_health_checks():
    compose = yaml.safe_load((DOCKER / "docker-compose.yml").read_text(encoding="utf-8"))
    neo4j, api = compose["services"]["neo4j"], compose["services"]["api"]
    assert neo4j["image"] == f"neo4j:{CURRENT_VERSION}-community"
    assert "${NEO4J_PASSWORD:?" in neo4j["environment"]["NEO4J_AUTH"]
    assert {v.split(":")[0] for v in neo4j["volumes"]} <= set(compose["volumes"])
    assert neo4j["healthcheck"]["test"] and api["healthcheck"]["test"]
    assert "/healthz" in " ".join(api["healthcheck"]["test"])
    assert api["depends_on"]["neo4j"]["condition"] == "service_healthy"
    assert api["environment"]["NEO4J_URI"] == "bolt://neo4j:7687"
    assert api["build"] == {"context": "..", "dockerfile": "docker/Dockerfile"}


def test_dockerfile_is_multi_stage_and_non_root():
    text = (DOCKER / "Dockerfile").read_text(encoding="utf-8")
    stages = re.findall(r"^FROM\s+\S+\s+AS\s+(\w+)", text, flags=re.MULTILINE)
    assert stages == ["builder", "runtime"]
    runtime = text.split("AS runtime", 1)[1]
    assert "COPY --from=builder" in runtime
    user = re.search(r"^USER\s+(\S+)", runtime, flags=re.MULTILINE)
    assert user and not user.group(1).startswith(("root", "0"))
    assert "HEALTHCHECK" in runtime and "/healthz" in runtime
    for path in re.findall(r"^COPY\s+(?!--)(\S+)", text, flags=re.MULTILINE):
        assert (DOCKER.parent / path).exists(), path
