"""The local server's generated neo4j.conf and settings (pure functions, no JVM)."""

import socket
from pathlib import Path

import pytest

from engrava_graph.graph.server import (
    CURRENT_VERSION,
    DEFAULT_BOLT_PORT,
    DEFAULT_HTTP_PORT,
    LTS_VERSION,
    LocalNeo4jServer,
    ServerSettings,
    _choose_port,
    _State,
    choose_version,
    java_majors,
    render_neo4j_conf,
)
from engrava_graph.model.errors import Neo4jUnavailableError


def _conf(tmp_path: Path, java_major: int | None = None) -> list[tuple[str, str]]:
    text = render_neo4j_conf(
        home=tmp_path / "instance-x", lib_dir=tmp_path / "lib",
        bolt_port=17687, http_port=17474, heap="1g", pagecache="512m", java_major=java_major,
    )  # fmt: skip
    return [tuple(line.split("=", 1)) for line in text.splitlines()]  # type: ignore[misc]


def test_conf_listens_on_loopback_only_with_auth(tmp_path: Path) -> None:
    settings = dict(_conf(tmp_path))
    assert settings["server.default_listen_address"] == "127.0.0.1"
    assert settings["server.bolt.listen_address"] == "127.0.0.1:17687"
    assert settings["server.http.listen_address"] == "127.0.0.1:17474"
    assert settings["server.https.enabled"] == "false"
    assert settings["dbms.security.auth_enabled"] == "true"
    listen = [value for key, value in settings.items() if key.endswith("listen_address")]
    assert all(value.startswith("127.0.0.1") for value in listen)


def test_conf_keys_are_unique_and_paths_absolute(tmp_path: Path) -> None:
    pairs = _conf(tmp_path)
    keys = [key for key, _ in pairs if key != "server.jvm.additional"]
    assert len(keys) == len(set(keys)), "strict validation rejects repeated keys"
    directories = [value for key, value in pairs if key.startswith("server.directories.")]
    assert directories and all(Path(value).is_absolute() for value in directories)


@pytest.mark.parametrize(("java_major", "reads_vector_api"), [(25, True), (21, True), (17, False)])
def test_vector_api_module_only_where_lucene_uses_it(
    tmp_path: Path, java_major: int, reads_vector_api: bool
) -> None:
    flags = [value for key, value in _conf(tmp_path, java_major) if key == "server.jvm.additional"]
    assert ("--add-modules=jdk.incubator.vector" in flags) is reads_vector_api


def test_settings_from_env(tmp_path: Path) -> None:
    settings = ServerSettings.from_env(
        {"ENGRAVA_GRAPH_HOME": str(tmp_path), "ENGRAVA_NEO4J_BOLT_PORT": "17000"}
    )
    server = LocalNeo4jServer("t1", settings)
    assert server.home == tmp_path / "neo4j" / "instance-t1"
    assert server.lib_dir == tmp_path / "neo4j" / server.version / "lib"
    assert settings.bolt_port == 17000 and settings.http_port is None
    with pytest.raises(Neo4jUnavailableError):
        ServerSettings.from_env({"ENGRAVA_NEO4J_HTTP_PORT": "http"})


def test_busy_default_port_is_replaced_but_busy_configured_port_fails() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        chosen = _choose_port(None, port, "X")
        assert chosen != port and chosen > 0
        with pytest.raises(Neo4jUnavailableError, match="X"):
            _choose_port(port, port, "X")


def test_ports_another_instance_recorded_are_not_picked(tmp_path: Path) -> None:
    """An instance starting while another is (its JVM not listening yet) must not take the
    same ports: the ports other instances' state files record are skipped unless configured."""
    settings = ServerSettings.from_env({"ENGRAVA_GRAPH_HOME": str(tmp_path)})
    starting, other = LocalNeo4jServer("a", settings), LocalNeo4jServer("b", settings)
    other.home.mkdir(parents=True)
    other._write_state(_State(None, DEFAULT_BOLT_PORT, DEFAULT_HTTP_PORT, other.version))
    (tmp_path / "neo4j" / "instance-c").mkdir()
    (tmp_path / "neo4j" / "instance-c" / "state.json").write_text("{half-written")
    assert starting._claimed_elsewhere() == {DEFAULT_BOLT_PORT, DEFAULT_HTTP_PORT}
    bolt, http = starting._choose_ports()
    assert {bolt, http}.isdisjoint({DEFAULT_BOLT_PORT, DEFAULT_HTTP_PORT}) and bolt != http
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert _choose_port(None, port, "X", {port}) != port
    assert _choose_port(port, port, "X", {port}) == port  # a configured port is the caller's


def test_version_configured_wins_then_recorded_then_java() -> None:
    assert choose_version("5.26.1", "2026.08.1")[0] == "5.26.1"
    assert choose_version(None, "5.26.30")[0] == "5.26.30"
    no_java = {"PATH": "/nonexistent", "JAVA_HOME": "/nonexistent"}
    version, reason = choose_version(None, None, no_java)
    assert version in (LTS_VERSION, CURRENT_VERSION) and reason


def test_java_majors_by_line() -> None:
    assert java_majors("5.26.30") == (17, 21)
    assert 25 in java_majors(CURRENT_VERSION) and 17 not in java_majors(CURRENT_VERSION)


def test_pom_pins_the_current_version() -> None:
    pom = (Path(__file__).resolve().parents[2] / "docker" / "neo4j-server.pom.xml").read_text()
    assert f"<neo4j.version>{CURRENT_VERSION}</neo4j.version>" in pom


def test_generated_password_is_never_read_as_an_option(tmp_path: Path) -> None:
    """neo4j-admin takes a password starting with '-' for an option; one left by an earlier
    failed first start (no database yet) is replaced, one in use is kept."""
    settings = ServerSettings.from_env({"ENGRAVA_GRAPH_HOME": str(tmp_path)})
    server = LocalNeo4jServer("t2", settings)
    server.home.mkdir(parents=True)
    passwords = set()
    for _ in range(200):
        server.password_file.unlink(missing_ok=True)
        passwords.add(server._ensure_password())
    assert len(passwords) == 200 and all(p.isalnum() and len(p) == 32 for p in passwords)
    server.password_file.write_text("-stale\n")
    assert server._ensure_password().isalnum()
    server.password_file.write_text("-in-use\n")
    (server.home / "data" / "databases" / "system").mkdir(parents=True)
    assert server._ensure_password() == "-in-use"
