"""Configuration of the REST service, read from the environment and ``.env`` (pydantic-settings).

Variables (every name but the Neo4j ones has the ``ENGRAVA_`` prefix)::

    NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD, NEO4J_DATABASE   the server (as the library reads them)
    ENGRAVA_API_KEYS        JSON list of keys, e.g.
        '[{"name": "agent", "key": "…", "namespaces": ["a", "b"], "read_only": false},
          {"name": "ops", "key_sha256": "<64 hex>", "namespaces": ["*"], "read_only": true}]'
    ENGRAVA_EMBEDDER        "sentence-transformers" (default) or "none" (keyword search only)
    ENGRAVA_EMBEDDING_WORKERS, ENGRAVA_EMBEDDING_CACHE_SIZE   model replicas embedding at once,
        and query texts whose vectors are remembered (LRU)
    ENGRAVA_EMBEDDING_BACKEND   "auto" (default: onnxruntime when it can run the model), "onnx"
        or "torch" (sentence-transformers on torch)
    ENGRAVA_NEO4J_MAX_POOL_SIZE, ENGRAVA_NEO4J_CONNECTION_TIMEOUT,
    ENGRAVA_NEO4J_MAX_TRANSACTION_RETRY_TIME   the driver's pool and timeouts (seconds)
    ENGRAVA_MAX_BODY_BYTES  the largest request body (bigger: 413)
    ENGRAVA_RETRY_AFTER_SECONDS   the Retry-After of a 503 while Neo4j is unreachable
    ENGRAVA_TIME            JSON of the time/recency settings every ranked path reads
        (:class:`~engrava_graph.search.fusion.TimeConfig`), e.g.
        '{"half_life_seconds": 86400, "access_decay_rate": 0.1, "recency_weight": 0.2}'

A key is stored as its SHA-256 digest only; give ``key_sha256`` (``printf %s KEY | sha256sum``) to
keep the plain key out of the configuration altogether.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Literal, Self

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, SettingsConfigDict, SettingsError

from engrava_graph.graph.connection import ConnectionInfo, resolve_connection
from engrava_graph.model.errors import validation_message
from engrava_graph.model.namespace import validate_namespace
from engrava_graph.search.fusion import TimeConfig

ALL_NAMESPACES = "*"
"""The namespace pattern that grants a key every namespace."""

MIN_KEY_CHARS = 16


class ApiKey(BaseModel):
    """One API key and what it may do.

    Attributes:
        name: a label for logs (the key itself is never logged); default ``key-<n>``.
        key: the secret, at least 16 characters; or
        key_sha256: its SHA-256 hex digest (exactly one of the two).
        namespaces: the namespaces the key may use; ``["*"]`` = all of them.
        read_only: a read-only key gets 403 on every write.

    Raises:
        pydantic.ValidationError: both or neither of ``key``/``key_sha256``, a short key, or a
            malformed namespace.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str | None = Field(default=None, max_length=64)
    key: SecretStr | None = None
    key_sha256: str | None = Field(default=None, pattern=r"^[0-9a-fA-F]{64}$")
    namespaces: tuple[str, ...] = Field(min_length=1)
    read_only: bool = False

    @field_validator("key")
    @classmethod
    def _long_enough(cls, key: SecretStr | None) -> SecretStr | None:
        if key is not None and len(key.get_secret_value()) < MIN_KEY_CHARS:
            raise ValueError(
                f"a key must be at least {MIN_KEY_CHARS} characters, got "
                f"{len(key.get_secret_value())}"
            )
        return key

    @model_validator(mode="after")
    def _check(self) -> Self:
        if (self.key is None) == (self.key_sha256 is None):
            raise ValueError("give exactly one of 'key' and 'key_sha256'")
        for namespace in self.namespaces:
            if namespace != ALL_NAMESPACES:
                validate_namespace(namespace)
        return self

    def digest(self) -> bytes:
        """The key's SHA-256 digest (32 bytes), the only form kept in memory for comparison."""
        if self.key_sha256 is not None:
            return bytes.fromhex(self.key_sha256)
        assert self.key is not None  # the validator guarantees one of the two
        return hashlib.sha256(self.key.get_secret_value().encode("utf-8")).digest()


class ApiSettings(BaseSettings):
    """Everything the service reads at start-up; see the module docstring for the variables.

    Attributes:
        neo4j_uri, neo4j_user, neo4j_password, neo4j_database: the server; with no URI the
            library's resolution order is used (Docker, then a running local server).
        api_keys: the keys; empty refuses to start unless ``insecure_dev``.
        insecure_dev: serve without authentication (every caller may do anything); the
            ``serve`` command sets it from its ``--insecure-dev`` flag only.
        embedder: ``"sentence-transformers"`` (bundled all-MiniLM-L6-v2) or ``"none"``.
        embedding_model_path: another local sentence-transformers model directory.
        embedding_workers: model replicas, i.e. query embeddings computed at once (on torch
            each replica costs the model's memory, about 90 MB for MiniLM-L6).
        embedding_cache_size: query texts whose vectors are kept (bounded LRU; 0 = none).
        embedding_backend: what runs the model: ``"auto"``, ``"onnx"`` or ``"torch"`` (see
            :class:`~engrava_graph.embeddings.SentenceTransformerProvider`).
        neo4j_max_pool_size: connections kept to the server.
        neo4j_connection_timeout: seconds to open one connection.
        neo4j_max_transaction_retry_time: seconds a managed transaction retries transient
            errors (a leader switch, a deadlock, a server briefly away) before failing with 503.
        migrate_on_start: run the idempotent schema migration at start-up (else only check it).
        max_body_bytes: largest request body; larger gets 413.
        retry_after_seconds: the ``Retry-After`` header of a 503.
        dream_jobs_kept: finished dream jobs remembered (oldest forgotten first).
        log_level: the ``api`` loggers' level.
        gc_tuning: tune Python's garbage collector for serving (``engrava-graph serve``): the
            start-up heap frozen out of collections and full collections after 1,000
            collections of the middle generation instead of 10 (docs/operations.md); off
            restores Python's defaults.
    """

    model_config = SettingsConfigDict(
        env_prefix="ENGRAVA_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        populate_by_name=True,
        frozen=True,
    )

    neo4j_uri: str | None = Field(
        default=None, validation_alias=AliasChoices("neo4j_uri", "NEO4J_URI")
    )
    neo4j_user: str = Field(
        default="neo4j", validation_alias=AliasChoices("neo4j_user", "NEO4J_USER")
    )
    neo4j_password: SecretStr = Field(
        default=SecretStr(""), validation_alias=AliasChoices("neo4j_password", "NEO4J_PASSWORD")
    )
    neo4j_database: str | None = Field(
        default=None, validation_alias=AliasChoices("neo4j_database", "NEO4J_DATABASE")
    )
    api_keys: tuple[ApiKey, ...] = ()
    insecure_dev: bool = False
    embedder: Literal["sentence-transformers", "none"] = "sentence-transformers"
    embedding_model_path: str | None = None
    embedding_workers: int = Field(default=1, ge=1, le=16)
    embedding_cache_size: int = Field(default=1024, ge=0, le=1_000_000)
    embedding_backend: Literal["auto", "onnx", "torch"] = "auto"
    neo4j_max_pool_size: int = Field(default=50, ge=1, le=1000)
    neo4j_connection_timeout: float = Field(default=5.0, gt=0)
    neo4j_max_transaction_retry_time: float = Field(default=10.0, ge=0)
    migrate_on_start: bool = True
    max_body_bytes: int = Field(default=4 * 1024 * 1024, ge=1024)
    retry_after_seconds: int = Field(default=5, ge=1)
    dream_jobs_kept: int = Field(default=1000, ge=1)
    time: TimeConfig = Field(default_factory=TimeConfig)
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    gc_tuning: bool = True

    @model_validator(mode="after")
    def _check_keys(self) -> Self:
        names = [key.name for key in self.api_keys if key.name is not None]
        if len(set(names)) != len(names):
            raise ValueError("API key names must be unique")
        digests = [key.digest() for key in self.api_keys]
        if len(set(digests)) != len(digests):
            raise ValueError("the same API key is configured twice")
        return self

    def connection(self) -> ConnectionInfo:
        """Where Neo4j is: the configured URI, else the library's resolution order (without
        starting a local server).

        Raises:
            Neo4jUnavailableError: no URI and no server found.
        """
        if self.neo4j_uri:
            return ConnectionInfo(
                uri=self.neo4j_uri,
                user=self.neo4j_user,
                password=self.neo4j_password.get_secret_value(),
                database=self.neo4j_database or None,
            )
        return resolve_connection(start_local=False)


_KEYS_EXAMPLE = (
    """'[{"name": "agent", "key": "a-long-random-secret-123", """
    """"namespaces": ["agent-1"]}]'"""
)


def _variable(field: str) -> str:
    """The environment variable of a settings field, as :class:`ApiSettings` reads it: its
    upper-case alias (``neo4j_uri`` -> ``NEO4J_URI``), else the prefixed name (``api_keys`` ->
    ``ENGRAVA_API_KEYS``)."""
    info = ApiSettings.model_fields.get(field)
    alias = info.validation_alias if info is not None else None
    if isinstance(alias, AliasChoices):
        named = [c for c in alias.choices if isinstance(c, str) and c.isupper()]
        if named:
            return named[0]
    return f"{ApiSettings.model_config['env_prefix']}{field.upper()}"


def load_settings(env_file: Path | None, *, insecure_dev: bool = False) -> ApiSettings:
    """Read the settings from the environment and ``env_file``, for the ``serve`` command.

    Args:
        env_file: the ``.env`` file read after the environment (None: none).
        insecure_dev: the ``--insecure-dev`` flag.

    Returns:
        The settings.

    Raises:
        ValueError: a variable that does not parse or validate, with a one-paragraph message
            naming the variable, what it expects and docs/api.md (never the value: it may be a
            secret).
    """
    try:
        return ApiSettings(_env_file=env_file, insecure_dev=insecure_dev)  # type: ignore[call-arg]
    except SettingsError as error:
        raise ValueError(_unparsable(error)) from None
    except ValidationError as error:
        raise ValueError(_invalid(error.errors(include_url=False))) from None


def _unparsable(error: SettingsError) -> str:
    """A value pydantic-settings could not decode (so far only JSON: ``ENGRAVA_API_KEYS``)."""
    field = str(error).split('"')[1] if str(error).count('"') >= 2 else "?"
    cause = f" ({error.__cause__})" if error.__cause__ else ""
    if field == "api_keys":
        return (
            f"ENGRAVA_API_KEYS (from the environment or .env) is not valid JSON{cause}: it "
            f"must be a JSON list of keys, e.g. ENGRAVA_API_KEYS={_KEYS_EXAMPLE}; leave it "
            f"unset only with --insecure-dev on a development machine. See docs/api.md "
            f'("Keys and namespaces").'
        )
    return (
        f"{_variable(field)} (from the environment or .env) could not be parsed{cause}; "
        f'see docs/api.md ("Configuration") for its format.'
    )


def _invalid(errors: list[dict[str, Any]]) -> str:
    """Values that parsed but are invalid: each as ``VARIABLE (path): message``."""
    shown = []
    for error in errors[:5]:
        loc = [str(part) for part in error.get("loc", ())]
        where = _variable(loc[0]) if loc else "the settings"
        path = f" (entry {'.'.join(loc[1:])})" if len(loc) > 1 else ""
        shown.append(f"{where}{path}: {validation_message(error)}")
    return (
        f"invalid settings: {'; '.join(shown)}. Fix the variable in the environment or .env; "
        f'see docs/api.md ("Configuration").'
    )
