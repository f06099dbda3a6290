"""A local Neo4j Community server for machines without Docker.

Maven assembles the server's jars from Maven Central once per Neo4j version (the pom ships as
``engrava_graph._docker/neo4j-server.pom.xml``, or ``docker/`` in a source checkout). Each named
instance runs one detached JVM on loopback, with its own data, logs and generated password::

    <cache>/neo4j/<version>/lib/               jars shared by all instances (plus pom.xml, mvn.log)
    <cache>/neo4j/instance-<name>/             conf/ data/ logs/ run/ plugins/ import/
    <cache>/neo4j/instance-<name>/password     mode 0600
    <cache>/neo4j/instance-<name>/state.json   pid, bolt port, http port, version

``<cache>`` is ``$ENGRAVA_GRAPH_HOME``, else ``${XDG_CACHE_HOME:-~/.cache}/engrava-graph``.
"""

from __future__ import annotations

import fcntl
import importlib.resources
import json
import os
import re
import secrets
import shlex
import shutil
import signal
import socket
import string
import subprocess
import time
from collections.abc import Iterator, Mapping, Set
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

from neo4j import GraphDatabase
from neo4j.exceptions import AuthError, ServiceUnavailable, SessionExpired, TransientError

from engrava_graph.graph.connection_info import ConnectionInfo
from engrava_graph.graph.registry import cypher
from engrava_graph.home import cache_dir
from engrava_graph.model.errors import Neo4jUnavailableError

CURRENT_VERSION = "2026.08.1"
"""The newest Neo4j Community line on Maven Central that this project is tested on (Java 21+)."""
LTS_VERSION = "5.26.30"
"""The long-term-support line, for machines with Java 17 only."""
DEFAULT_BOLT_PORT = 7687
DEFAULT_HTTP_PORT = 7474
DEFAULT_HEAP = "1g"
DEFAULT_PAGECACHE = "512m"
USER = "neo4j"
POM_NAME = "neo4j-server.pom.xml"
_PASSWORD_ALPHABET = string.ascii_letters + string.digits
ENTRY_POINTS = ("org.neo4j.server.CommunityEntryPoint", "org.neo4j.server.Neo4jCommunity")
LTS_JAVA = (17, 21)
"""Java majors Neo4j 5.26 runs on."""
CALENDAR_JAVA = (25, 21)
"""Java majors the calendar releases (2025.10 and later) run on, preferred first."""
INSTALL_HINT = (
    "Install Java 21 (or 17 for Neo4j 5.26) and Maven (Debian/Ubuntu: `apt-get install "
    "openjdk-17-jre-headless maven`; or point JAVA_HOME at a JDK), or set NEO4J_URI to an "
    "existing Neo4j."
)

PING = cypher("hygiene/ping")
MVN_TIMEOUT = 900.0  # seconds: a cold download of ~215 jars takes 1-2 minutes
ADMIN_TIMEOUT = 120.0  # seconds: neo4j-admin and the launcher's --dry-run take ~5 s
JAVA_PROBE_TIMEOUT = 30.0  # seconds for `java -version`
KILL_WAIT = 10.0  # seconds to wait for a SIGKILLed JVM to disappear
POLL_INTERVAL = 0.5  # seconds between readiness or exit checks
CONNECT_TIMEOUT = 2.0  # seconds for one readiness probe's connection
LOG_TAIL_LINES = 40

JVM_FLAGS = (
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Dlog4j2.disable.jmx=true",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
)
#: Lucene's SIMD vector scoring (the vector index) runs only when the JVM can read the Vector
#: API's incubator module; Neo4j warns at start-up without it. Lucene uses it from Java 21 (on 17
#: Neo4j 5.26 would only warn that the Java is too old). At 100,000 thoughts it cut a vector
#: query's server CPU by a fifth (docs/benchmarks.md, fourteenth round).
VECTOR_API_FLAGS = ("--add-modules=jdk.incubator.vector",)
VECTOR_API_MIN_JAVA = 21
INSTANCE_DIRS = ("conf", "data", "logs", "run", "plugins", "import")

# JVMs started by this process, so their exit is reaped and seen at once (pid -> process).
_children: dict[int, subprocess.Popen[bytes]] = {}


@dataclass(frozen=True)
class ServerSettings:
    """Local-server settings, normally read from the environment by ``from_env``.

    ``version`` None lets the instance choose (:func:`choose_version`). ``bolt_port``/
    ``http_port`` are None to take 7687/7474, or free ports when those are busy or recorded by
    another instance. ``heap`` and
    ``pagecache`` are Neo4j memory sizes such as ``1g`` or ``512m``. ``instance`` names the
    instance the CLI and the tests use.
    """

    cache_dir: Path
    version: str | None = None
    bolt_port: int | None = None
    http_port: int | None = None
    heap: str = DEFAULT_HEAP
    pagecache: str = DEFAULT_PAGECACHE
    instance: str = "default"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ServerSettings:
        """Read ENGRAVA_GRAPH_HOME, XDG_CACHE_HOME and the ENGRAVA_NEO4J_* variables
        (``_VERSION``, ``_BOLT_PORT``, ``_HTTP_PORT``, ``_HEAP``, ``_PAGECACHE``, ``_INSTANCE``).

        Raises:
            Neo4jUnavailableError: a port variable is not a port number.
        """
        env = os.environ if environ is None else environ
        return cls(
            cache_dir=cache_dir(env),
            version=env.get("ENGRAVA_NEO4J_VERSION") or None,
            bolt_port=_port_from_env(env, "ENGRAVA_NEO4J_BOLT_PORT"),
            http_port=_port_from_env(env, "ENGRAVA_NEO4J_HTTP_PORT"),
            heap=env.get("ENGRAVA_NEO4J_HEAP") or DEFAULT_HEAP,
            pagecache=env.get("ENGRAVA_NEO4J_PAGECACHE") or DEFAULT_PAGECACHE,
            instance=env.get("ENGRAVA_NEO4J_INSTANCE") or "default",
        )


@dataclass(frozen=True)
class ServerStatus:
    """What ``LocalNeo4jServer.status`` sees; pid, uri and browser_url are set only when running."""

    running: bool
    pid: int | None
    uri: str | None
    browser_url: str | None
    version: str
    home: Path


@dataclass(frozen=True)
class _State:
    """Contents of ``state.json``; ``pid`` is None once stopped."""

    pid: int | None
    bolt_port: int
    http_port: int
    version: str


def render_neo4j_conf(
    *,
    home: Path,
    lib_dir: Path,
    bolt_port: int,
    http_port: int,
    heap: str,
    pagecache: str,
    java_major: int | None = None,
) -> str:
    """Return a neo4j.conf for one instance: loopback only, auth on, no HTTPS, no usage report.

    ``home`` holds the instance's directories; ``lib_dir`` holds the assembled jars;
    ``java_major`` is the major version of the JVM that will run it (with 21 or newer the JVM
    reads the Vector API module, :data:`VECTOR_API_FLAGS`). Every key appears once, except
    ``server.jvm.additional`` (Neo4j's strict validation).
    """
    settings = {
        "server.default_listen_address": "127.0.0.1",
        "server.default_advertised_address": "127.0.0.1",
        "server.bolt.enabled": "true",
        "server.bolt.listen_address": f"127.0.0.1:{bolt_port}",
        "server.bolt.advertised_address": f"127.0.0.1:{bolt_port}",
        "server.http.enabled": "true",
        "server.http.listen_address": f"127.0.0.1:{http_port}",
        "server.http.advertised_address": f"127.0.0.1:{http_port}",
        "server.https.enabled": "false",
        "dbms.routing.enabled": "false",
        "dbms.security.auth_enabled": "true",
        "dbms.usage_report.enabled": "false",
        **{f"server.directories.{name}": str(home / name) for name in INSTANCE_DIRS[1:]},
        "server.directories.lib": str(lib_dir),
        "server.memory.heap.initial_size": heap,
        "server.memory.heap.max_size": heap,
        "server.memory.pagecache.size": pagecache,
    }
    lines = [f"{key}={value}" for key, value in settings.items()]
    vector_api = java_major is not None and java_major >= VECTOR_API_MIN_JAVA
    flags = JVM_FLAGS + (VECTOR_API_FLAGS if vector_api else ())
    lines += [f"server.jvm.additional={flag}" for flag in flags]
    return "\n".join(lines) + "\n"


class LocalNeo4jServer:
    """One local Neo4j instance under the cache directory (see the module docstring).

    The JVM runs in its own session and outlives the Python process; ``state.json`` lets any
    later process find, query and stop it. Start and stop hold a file lock, so concurrent callers
    (a CLI and a test run) see one server.
    """

    def __init__(self, name: str | None = None, settings: ServerSettings | None = None) -> None:
        """``name`` defaults to the settings' ``instance``; the version to
        :func:`choose_version`'s (``version_reason`` says why).

        Raises:
            ValueError: ``name`` is not made of letters, digits, ``-`` and ``_``.
        """
        self.settings = settings or ServerSettings.from_env()
        name = self.settings.instance if name is None else name
        if not re.fullmatch(r"[A-Za-z0-9_-]+", name):
            raise ValueError(f"instance name must be letters, digits, '-' or '_': {name!r}")
        self.name = name
        root = self.settings.cache_dir / "neo4j"
        self.home = root / f"instance-{name}"
        self.password_file = self.home / "password"
        self.state_file = self.home / "state.json"
        self.console_log = self.home / "logs" / "console.log"
        recorded = self._read_state()
        self.version, self.version_reason = choose_version(
            self.settings.version, recorded.version if recorded else None
        )
        self.version_dir = root / self.version
        self.lib_dir = self.version_dir / "lib"

    def ensure_assembled(self) -> Path:
        """Download the Neo4j jars with Maven unless already done; return the lib directory.

        The first call per version takes 1-2 minutes (up to ``MVN_TIMEOUT`` seconds); later calls
        return at once and need neither Maven nor network. Maven's output goes to ``mvn.log``.

        Raises:
            Neo4jUnavailableError: Java 17/21 or Maven is missing, or Maven fails or times out.
        """
        if _has_jars(self.lib_dir):
            return self.lib_dir
        java = find_java(java_majors(self.version))
        mvn = shutil.which("mvn")
        if mvn is None:
            raise Neo4jUnavailableError(f"Maven (`mvn`) is not on PATH. {INSTALL_HINT}")
        self.version_dir.mkdir(parents=True, exist_ok=True)
        with _file_lock(self.version_dir / ".lock"):
            if not _has_jars(self.lib_dir):
                self._assemble(mvn, java)
        return self.lib_dir

    def start(self, timeout: float = 180.0) -> ConnectionInfo:
        """Start the server, or reuse it if it is already running; return how to connect.

        ``timeout`` is in seconds and bounds the wait for the JVM to answer Bolt (about 10-15 s
        on a warm machine); the one-time Maven assembly has its own ``MVN_TIMEOUT``.

        Raises:
            Neo4jUnavailableError: no Java/Maven, assembly failed, a configured port is busy, the
                JVM exited during start-up, or it did not answer within ``timeout``.
        """
        deadline = time.monotonic() + timeout
        self.home.mkdir(parents=True, exist_ok=True)
        with _file_lock(self.home / ".lock"):
            pid = self._live_pid(self._read_state())
            if pid is not None:
                info = self.connection_info()
                self._wait_ready(info, pid, deadline)
                return info
            return self._launch(deadline)

    def stop(self, timeout: float = 120.0) -> bool:
        """Stop the server: SIGTERM, then SIGKILL after ``timeout`` seconds.

        Returns True if a running server was stopped, False if none was running.

        Raises:
            Neo4jUnavailableError: the JVM survived SIGKILL for ``KILL_WAIT`` seconds.
        """
        if not self.home.is_dir():
            return False
        with _file_lock(self.home / ".lock"):
            state = self._read_state()
            pid = self._live_pid(state)
            if state is None or pid is None:
                return False
            self._terminate(pid, timeout)
            self._write_state(_State(None, state.bolt_port, state.http_port, state.version))
            return True

    def status(self) -> ServerStatus:
        """Report whether this instance's JVM is alive (no network round trip)."""
        state = self._read_state()
        pid = self._live_pid(state)
        if state is None or pid is None:
            version = state.version if state else self.version
            return ServerStatus(False, None, None, None, version, self.home)
        return ServerStatus(
            running=True,
            pid=pid,
            uri=_bolt_uri(state.bolt_port),
            browser_url=_browser_url(state.http_port),
            version=state.version,
            home=self.home,
        )

    def connection_info(self) -> ConnectionInfo:
        """Return the recorded Bolt URI and credentials (whether or not the JVM is up).

        Raises:
            Neo4jUnavailableError: this instance has never been started.
        """
        state = self._read_state()
        if state is None or not self.password_file.exists():
            raise Neo4jUnavailableError(
                f"The local Neo4j '{self.name}' has never been started: "
                "run `engrava-graph neo4j start`."
            )
        return ConnectionInfo(
            uri=_bolt_uri(state.bolt_port),
            user=USER,
            password=self.password_file.read_text().strip(),
            origin="local",
        )

    def _assemble(self, mvn: str, java: Path) -> None:
        """Run Maven into ``lib.partial`` and rename it to ``lib`` once complete."""
        partial = self.version_dir / "lib.partial"
        shutil.rmtree(partial, ignore_errors=True)
        pom = self.version_dir / "pom.xml"
        pom.write_bytes(_pom_bytes())
        command = [
            mvn, "-B", "-q", "-f", str(pom), "dependency:copy-dependencies",
            f"-DoutputDirectory={partial}", "-DincludeScope=runtime",
            f"-Dneo4j.version={self.version}",
        ]  # fmt: skip
        env = {**os.environ, "JAVA_HOME": str(java.parent.parent)}
        _run_logged(command, self.version_dir / "mvn.log", MVN_TIMEOUT, env, "Maven assembly")
        if not _has_jars(partial):
            raise Neo4jUnavailableError(f"Maven produced no jars in {partial}.")
        partial.rename(self.lib_dir)

    def _launch(self, deadline: float) -> ConnectionInfo:
        """Write the conf, set the initial password, spawn the JVM and wait until it answers."""
        lib = self.ensure_assembled()
        java = find_java(java_majors(self.version))
        for directory in INSTANCE_DIRS:
            (self.home / directory).mkdir(exist_ok=True)
        # Chosen and recorded under one lock of every instance, so an instance starting at the
        # same moment (its JVM not listening yet) does not take the same ports.
        with _file_lock(self.home.parent / ".ports.lock"):
            bolt_port, http_port = self._choose_ports()
            self._write_state(_State(None, bolt_port, http_port, self.version))
        conf = render_neo4j_conf(
            home=self.home, lib_dir=lib, bolt_port=bolt_port, http_port=http_port,
            heap=self.settings.heap, pagecache=self.settings.pagecache,
            java_major=_java_major(java),
        )  # fmt: skip
        (self.home / "conf" / "neo4j.conf").write_text(conf)
        password = self._ensure_password()
        if not self._system_db_exists():
            self._run_java(
                java, lib, "Neo4jAdminCommand", ["dbms", "set-initial-password", password]
            )
        command = self._server_command(java, lib)
        with open(self.console_log, "wb") as log:
            process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                cwd=self.home, env=self._java_env(java), start_new_session=True,
            )  # fmt: skip
        _children[process.pid] = process
        self._write_state(_State(process.pid, bolt_port, http_port, self.version))
        info = self.connection_info()
        try:
            self._wait_ready(info, process.pid, deadline)
        except Neo4jUnavailableError:
            self._terminate(process.pid, KILL_WAIT)
            raise
        return info

    def _choose_ports(self) -> tuple[int, int]:
        """Pick the Bolt and HTTP ports: configured, else the defaults, else free ones; a port
        another instance of this cache recorded is not picked unless configured.

        Raises:
            Neo4jUnavailableError: a port set through the environment is busy.
        """
        claimed = self._claimed_elsewhere()
        bolt = _choose_port(
            self.settings.bolt_port, DEFAULT_BOLT_PORT, "ENGRAVA_NEO4J_BOLT_PORT", claimed
        )
        http = _choose_port(
            self.settings.http_port, DEFAULT_HTTP_PORT, "ENGRAVA_NEO4J_HTTP_PORT", claimed | {bolt}
        )
        return bolt, http

    def _claimed_elsewhere(self) -> set[int]:
        """The ports the other instances' ``state.json`` files record (running or not: one that
        is starting has no listener yet, and a stopped one keeps its ports for its next start)."""
        claimed: set[int] = set()
        for state_file in self.home.parent.glob("instance-*/state.json"):
            if state_file.parent == self.home:
                continue
            try:
                state = json.loads(state_file.read_text())
                claimed.update(int(state[key]) for key in ("bolt_port", "http_port"))
            except (OSError, ValueError, TypeError, KeyError):
                continue  # unreadable or half-written: it claims nothing
        return claimed

    def _ensure_password(self) -> str:
        """Return the instance password, generating it (mode 0600) on the first start.

        Raises:
            Neo4jUnavailableError: the password file is gone but the database already exists.
        """
        if self.password_file.exists():
            password = self.password_file.read_text().strip()
            if not password.startswith("-") or self._system_db_exists():
                return password
            # Written by an earlier version that could start it with '-', which failed
            # set-initial-password before any database existed: never used, so replaced.
            self.password_file.unlink()
        if self._system_db_exists():
            raise Neo4jUnavailableError(
                f"{self.password_file} is missing but {self.home} already holds a database; "
                f"delete {self.home} to start afresh."
            )
        # Letters and digits only: a password starting with '-' (token_urlsafe gives one in 64
        # times) is read by neo4j-admin as an option, and set-initial-password fails.
        password = "".join(secrets.choice(_PASSWORD_ALPHABET) for _ in range(32))
        fd = os.open(self.password_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(password + "\n")
        return password

    def _system_db_exists(self) -> bool:
        return (self.home / "data" / "databases" / "system").exists()

    def _server_command(self, java: Path, lib: Path) -> list[str]:
        """Ask Neo4j's launcher (``console --dry-run``) for the exact server JVM command line.

        This also validates neo4j.conf. Raises Neo4jUnavailableError if the launcher fails.
        """
        output = self._run_java(java, lib, "Neo4jCommand", ["console", "--dry-run"])
        lines = [line for line in output.splitlines() if line.strip()]
        command = shlex.split(lines[-1]) if lines else []
        if not set(ENTRY_POINTS) & set(command):
            raise Neo4jUnavailableError(f"Unexpected output from the Neo4j launcher:\n{output}")
        return command

    def _run_java(self, java: Path, lib: Path, boot_class: str, args: list[str]) -> str:
        """Run ``org.neo4j.server.startup.<boot_class>`` and return its stdout.

        Raises:
            Neo4jUnavailableError: it fails or takes more than ``ADMIN_TIMEOUT`` seconds.
        """
        command = [str(java), "-cp", f"{lib}/*", f"org.neo4j.server.startup.{boot_class}", *args]
        what = " ".join(args[:2])  # never the password, which comes third
        try:
            result = subprocess.run(
                command, check=False, capture_output=True, text=True, timeout=ADMIN_TIMEOUT,
                cwd=self.home, env=self._java_env(java), stdin=subprocess.DEVNULL,
            )  # fmt: skip
        except subprocess.TimeoutExpired as exc:
            raise Neo4jUnavailableError(f"Neo4j {what} took over {exc.timeout} s") from exc
        if result.returncode != 0:
            raise Neo4jUnavailableError(
                f"Neo4j {what} failed (exit {result.returncode}):\n{result.stdout}{result.stderr}"
            )
        return result.stdout

    def _java_env(self, java: Path) -> dict[str, str]:
        """Environment for Neo4j's launchers and JVM, minus JAVA_OPTS/HEAP_SIZE (they beat conf)."""
        env = {k: v for k, v in os.environ.items() if k not in ("JAVA_OPTS", "HEAP_SIZE")}
        env.update(
            NEO4J_HOME=str(self.home),
            NEO4J_CONF=str(self.home / "conf"),
            JAVA_HOME=str(java.parent.parent),
        )
        return env

    def _wait_ready(self, info: ConnectionInfo, pid: int, deadline: float) -> None:
        """Poll Bolt until ``RETURN 1`` answers, until the monotonic ``deadline`` (seconds).

        Raises:
            Neo4jUnavailableError: the JVM exited, rejected the password, or never answered.
        """
        while True:
            if not self._alive(pid):
                raise Neo4jUnavailableError(
                    f"Neo4j (pid {pid}) exited during start-up. {self._console_tail()}"
                )
            try:
                _probe(info)
                return
            except AuthError as exc:
                raise Neo4jUnavailableError(
                    f"Neo4j rejected the password in {self.password_file}: {exc}"
                ) from exc
            except (ServiceUnavailable, SessionExpired, TransientError, OSError) as exc:
                last_error = exc
            if time.monotonic() >= deadline:
                raise Neo4jUnavailableError(
                    f"Neo4j (pid {pid}) did not answer on {info.uri} in time ({last_error}). "
                    f"{self._console_tail()}"
                )
            time.sleep(POLL_INTERVAL)

    def _console_tail(self) -> str:
        return f"Last lines of {self.console_log}:\n{_tail(self.console_log)}"

    def _live_pid(self, state: _State | None) -> int | None:
        """The recorded pid if that JVM is alive, else None."""
        if state is None or state.pid is None or not self._alive(state.pid):
            return None
        return state.pid

    def _alive(self, pid: int) -> bool:
        """True if ``pid`` is alive and is this instance's JVM (guards against pid reuse)."""
        child = _children.get(pid)
        if child is not None:
            return child.poll() is None
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            pass
        proc = Path("/proc")
        if not proc.is_dir():
            return True
        try:
            cmdline = (proc / str(pid) / "cmdline").read_bytes()
        except OSError:
            return False
        return f"--home-dir={self.home}".encode() in cmdline

    def _terminate(self, pid: int, timeout: float) -> None:
        """SIGTERM ``pid``, wait ``timeout`` seconds, then SIGKILL.

        Raises:
            Neo4jUnavailableError: it is still alive ``KILL_WAIT`` seconds after SIGKILL.
        """
        for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, KILL_WAIT)):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                return
            if self._wait_exit(pid, wait):
                _children.pop(pid, None)
                return
        raise Neo4jUnavailableError(f"Neo4j (pid {pid}) survived SIGKILL.")

    def _wait_exit(self, pid: int, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for ``pid`` to exit; True if it did."""
        deadline = time.monotonic() + timeout
        while self._alive(pid):
            if time.monotonic() >= deadline:
                return False
            time.sleep(POLL_INTERVAL / 5)
        return True

    def _read_state(self) -> _State | None:
        try:
            return _State(**json.loads(self.state_file.read_text()))
        except (FileNotFoundError, json.JSONDecodeError, TypeError):
            return None

    def _write_state(self, state: _State) -> None:
        tmp = self.state_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(asdict(state), indent=2) + "\n")
        tmp.replace(self.state_file)


def java_majors(version: str) -> tuple[int, ...]:
    """The Java majors a Neo4j version runs on, preferred first: 25 or 21 for the calendar
    releases (``2025.10`` and later), 17 or 21 for 5.x."""
    return CALENDAR_JAVA if version[:4].isdigit() and int(version[:4]) >= 2025 else LTS_JAVA


def choose_version(
    configured: str | None, recorded: str | None, environ: Mapping[str, str] | None = None
) -> tuple[str, str]:
    """Which Neo4j version an instance runs, and why (one phrase for the console).

    ``configured`` (ENGRAVA_NEO4J_VERSION) wins; else the version an existing instance was
    created with (its store is never moved to another line behind the user's back); else
    :data:`CURRENT_VERSION` when a Java 21+ runtime is present, and :data:`LTS_VERSION` on
    Java 17.
    """
    if configured:
        return configured, "set by ENGRAVA_NEO4J_VERSION"
    if recorded:
        return recorded, "the version this instance was created with"
    try:
        java = find_java(CALENDAR_JAVA, environ)
    except Neo4jUnavailableError:
        return LTS_VERSION, "the LTS line: no Java 21 or newer was found (Java 17 runs 5.26)"
    return CURRENT_VERSION, f"the current line: Java {_java_major(java)} is at {java}"


def find_java(majors: tuple[int, ...] = LTS_JAVA, environ: Mapping[str, str] | None = None) -> Path:
    """Return a Java binary of one of ``majors``: JAVA_HOME, then /usr/lib/jvm's JDKs
    (OpenJDK and Temurin, in the order of ``majors``), then PATH.

    Raises:
        Neo4jUnavailableError: none of them is one of ``majors``.
    """
    env = os.environ if environ is None else environ
    candidates: list[Path] = []
    if env.get("JAVA_HOME"):
        candidates.append(Path(env["JAVA_HOME"]) / "bin" / "java")
    for major in majors:
        for pattern in (f"java-{major}-openjdk-*", f"temurin-{major}-*"):
            candidates += sorted(Path("/usr/lib/jvm").glob(f"{pattern}/bin/java"))
    on_path = shutil.which("java", path=env.get("PATH"))
    if on_path:
        candidates.append(Path(on_path))
    for java in candidates:
        if java.is_file() and _java_major(java) in majors:
            return java
    wanted = " or ".join(str(m) for m in sorted(majors))
    raise Neo4jUnavailableError(f"This Neo4j needs Java {wanted} and found none. {INSTALL_HINT}")


def _java_major(java: Path) -> int | None:
    """Major version of a java binary (8 for 1.8), or None if it cannot be run."""
    try:
        result = subprocess.run(
            [str(java), "-version"],
            check=False,
            capture_output=True,
            text=True,
            timeout=JAVA_PROBE_TIMEOUT,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.search(r'version "(\d+)(?:\.(\d+))?', result.stderr + result.stdout)
    if match is None:
        return None
    major = int(match.group(1))
    return int(match.group(2) or 0) if major == 1 else major


def _pom_bytes() -> bytes:
    """The Maven pom: package data ``engrava_graph._docker`` first, then the source checkout.

    Raises:
        Neo4jUnavailableError: neither has it (a broken install).
    """
    try:
        resource = importlib.resources.files("engrava_graph._docker") / POM_NAME
        if resource.is_file():
            return resource.read_bytes()
    except ModuleNotFoundError:
        pass
    checkout = Path(__file__).resolve().parents[2] / "docker" / POM_NAME
    if checkout.is_file():
        return checkout.read_bytes()
    raise Neo4jUnavailableError(
        f"{POM_NAME} is neither in package engrava_graph._docker nor at {checkout}."
    )


def _run_logged(
    command: list[str], log: Path, timeout: float, env: Mapping[str, str], what: str
) -> None:
    """Run ``command`` with its output in ``log``; ``timeout`` in seconds.

    Raises:
        Neo4jUnavailableError: it exits non-zero or times out; the message has the log's tail.
    """
    with open(log, "wb") as handle:
        try:
            result = subprocess.run(
                command, check=False, stdout=handle, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, timeout=timeout, env=dict(env),
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            raise Neo4jUnavailableError(
                f"{what} took over {timeout:.0f} s. Last lines of {log}:\n{_tail(log)}"
            ) from None
    if result.returncode != 0:
        raise Neo4jUnavailableError(
            f"{what} failed (exit {result.returncode}). Last lines of {log}:\n{_tail(log)}"
        )


def _probe(info: ConnectionInfo) -> None:
    """One readiness round trip: connect, authenticate, run ``cypher/hygiene/ping.cypher``."""
    auth = (info.user, info.password)
    with GraphDatabase.driver(info.uri, auth=auth, connection_timeout=CONNECT_TIMEOUT) as driver:
        driver.verify_connectivity()
        driver.execute_query(PING.text, database_=info.database)


def _choose_port(
    configured: int | None, default: int, variable: str, taken: Set[int] = frozenset()
) -> int:
    """Return ``configured`` if free; else ``default`` if free and not in ``taken``; else a free
    port not in ``taken``.

    Raises:
        Neo4jUnavailableError: ``configured`` (set through ``variable``) is busy.
    """
    if configured is not None:
        if not _port_free(configured):
            raise Neo4jUnavailableError(f"Port {configured} ({variable}) is already in use.")
        return configured
    if default not in taken and _port_free(default):
        return default
    while True:
        port = _free_port()
        if port not in taken:
            return port


def _port_free(port: int) -> bool:
    """True if a listener can bind 127.0.0.1:``port`` (with SO_REUSEADDR, as Neo4j does)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _has_jars(directory: Path) -> bool:
    return directory.is_dir() and any(directory.glob("neo4j-*.jar"))


def _tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except FileNotFoundError:
        return "(no log)"


def _bolt_uri(port: int) -> str:
    return f"bolt://127.0.0.1:{port}"


def _browser_url(port: int) -> str:
    return f"http://127.0.0.1:{port}/browser/"


def _port_from_env(env: Mapping[str, str], variable: str) -> int | None:
    """Raises Neo4jUnavailableError when ``variable`` is set but not a port number."""
    value = env.get(variable)
    if not value:
        return None
    if not value.isdigit() or not 0 < int(value) < 65536:
        raise Neo4jUnavailableError(f"{variable}={value!r} is not a port number.")
    return int(value)


@contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path`` (created if missing) for the ``with`` block."""
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
