"""The broker connection, the `league:` config section, topics and the messages on them.

Topics (every payload is JSON, UTF-8; QoS 1):

    uno-table/<match>/<table>/events   a table's log entries, one message each, with `seq`
    uno-table/<match>/<table>/state    retained: round, scores, whose turn, the log's length
    uno-table/<match>/<table>/status   retained: online, or the last will `offline`
    uno-table/<match>/<table>/resend   league -> table: "send log L again from entry N"

No home-made protocol: MQTT 3.1.1 through paho-mqtt, any broker (Mosquitto, EMQX, VerneMQ).
"""

from __future__ import annotations

import json
import re
import ssl
import uuid
from pathlib import Path
from typing import Any, Literal
from urllib.parse import unquote, urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from table.errors import ConfigError, validation_problems

ROOT = "uno-table"
KINDS = ("events", "state", "status", "resend")
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")
LOG_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,79}$")
SCHEMES = {"mqtt": (1883, False), "tcp": (1883, False), "mqtts": (8883, True), "ssl": (8883, True)}
VERSION = 1


class LeagueError(ConfigError):
    """A league setting that cannot work (bad broker URL, bad table name...)."""


# ----------------------------------------------------------------------------- broker URL


class BrokerUrl(BaseModel):
    model_config = ConfigDict(frozen=True)

    host: str
    port: int
    tls: bool
    username: str | None = None
    password: str | None = None

    def __str__(self) -> str:  # never prints the password
        return f"{'mqtts' if self.tls else 'mqtt'}://{self.host}:{self.port}"


def parse_broker_url(url: str) -> BrokerUrl:
    """`mqtt://HOST[:PORT]` (1883), `mqtts://HOST[:PORT]` (TLS, 8883); user:password@ allowed."""
    if not isinstance(url, str) or not url.strip():
        raise LeagueError("broker: expected a URL like mqtt://HOST[:PORT], got nothing")
    text = url.strip()
    if "://" not in text:
        raise LeagueError(f"broker {text!r}: expected a URL like mqtt://HOST[:PORT] (the scheme is missing)")
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        raise LeagueError(f"broker {text!r}: not a URL like mqtt://HOST[:PORT] ({exc})") from None
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES:
        raise LeagueError(f"broker {text!r}: scheme {scheme!r} is not one of mqtt://, mqtts:// (TLS)")
    if not parts.hostname:
        raise LeagueError(f"broker {text!r}: no host name (expected mqtt://HOST[:PORT])")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise LeagueError(f"broker {text!r}: a broker URL has no path, query or fragment")
    default_port, tls = SCHEMES[scheme]
    if port == 0:
        raise LeagueError(f"broker {text!r}: port 0 is not a port")
    return BrokerUrl(
        host=parts.hostname,
        port=port or default_port,
        tls=tls,
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
    )


# ----------------------------------------------------------------------------- config


class TlsConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", title="League TLS")

    ca_certs: Path | None = Field(
        None, description="CA bundle that signed the broker's certificate (default: the system's)."
    )
    certfile: Path | None = Field(None, description="Client certificate (brokers that ask for one).")
    keyfile: Path | None = Field(None, description="The client certificate's private key.")
    insecure: bool = Field(
        False, description="Skip the host name check of the broker's certificate (testing only)."
    )

    @model_validator(mode="after")
    def _files(self) -> TlsConfig:
        for name in ("ca_certs", "certfile", "keyfile"):
            path = getattr(self, name)
            if path is not None and not path.is_file():
                raise ValueError(f"{name}: {path} is not a file")
        if (self.certfile is None) != (self.keyfile is None):
            raise ValueError("certfile and keyfile go together")
        return self


class LeagueConfig(BaseModel):
    """`league:` in uno-table.yaml: this table publishes its log to a broker."""

    model_config = ConfigDict(extra="forbid", title="League")

    broker: str = Field(description="mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (TLS).")
    table: str | None = Field(
        None, description="This table's name in the league (letters, digits, - _ .; unique)."
    )
    match: str = Field(
        "club",
        description="The league match (or club night) this table plays in; both tables of a "
        "two-table match give the same name.",
    )
    part: Literal[0, 1] | None = Field(
        None,
        description="8 players, rotating partners (T2) at two tables: which table of the "
        "schedule this one plays, 0 or 1. Empty for a table playing its own matches.",
    )
    username: str | None = Field(None, max_length=200, description="Broker user name.")
    password: str | None = Field(
        None, max_length=200, description="Broker password (or $UNO_TABLE_MQTT_PASSWORD)."
    )
    tls: TlsConfig | None = Field(
        None, description="TLS options (mqtts:// turns TLS on with the system's CA bundle)."
    )
    keepalive: int = Field(
        15, ge=5, le=600, description="Seconds between pings: a dead link is noticed in 1.5x."
    )

    @field_validator("broker")
    @classmethod
    def _broker(cls, v: str) -> str:
        try:
            parse_broker_url(v)
        except LeagueError as exc:
            raise ValueError(str(exc)) from None
        return v

    @field_validator("table", "match")
    @classmethod
    def _name(cls, v: str | None) -> str | None:
        if v is not None and not NAME_RE.match(v):
            raise ValueError(
                f"{v!r}: a name of 1-40 letters, digits, '-', '_' or '.', starting with a "
                "letter or digit (it becomes an MQTT topic level)"
            )
        return v

    @property
    def url(self) -> BrokerUrl:
        return parse_broker_url(self.broker)


def league_config(data: dict[str, Any] | LeagueConfig) -> LeagueConfig:
    if isinstance(data, LeagueConfig):
        return data
    try:
        return LeagueConfig.model_validate(data)
    except ValidationError as exc:
        raise LeagueError(f"league: {validation_problems(exc)}") from None


# ----------------------------------------------------------------------------- topics


def topic(match: str, table: str, kind: str) -> str:
    return f"{ROOT}/{match}/{table}/{kind}"


def parse_topic(name: str) -> tuple[str, str, str] | None:
    """(match, table, kind) for one of ours, else None."""
    parts = name.split("/")
    if len(parts) != 4 or parts[0] != ROOT or parts[3] not in KINDS:
        return None
    if not NAME_RE.match(parts[1]) or not NAME_RE.match(parts[2]):
        return None
    return parts[1], parts[2], parts[3]


# ----------------------------------------------------------------------------- messages


class _Msg(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    v: Literal[1]
    instance: str = Field(min_length=1, max_length=64)


class LogMeta(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    players: tuple[str, ...] = Field(min_length=2, max_length=10)
    format: str = Field("standard", max_length=20)
    part: Literal[0, 1] | None = None
    rules: str = Field("custom", max_length=40)
    seats: int = Field(ge=2, le=10)

    @field_validator("players")
    @classmethod
    def _players(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if len(set(v)) != len(v) or not all(0 < len(p.strip()) <= 40 for p in v):
            raise ValueError("players must be distinct names of 1-40 characters")
        return v


class EntryMessage(_Msg):
    """One log entry: the input as logged, and what the table's referee made of it."""

    log: str = Field(pattern=LOG_RE.pattern)
    seq: int = Field(ge=1, le=10**9)
    kind: str = Field(min_length=1, max_length=40)
    input: dict[str, Any]
    logged_at: float
    round: int = Field(0, ge=0, le=100_000)
    phase: str = Field("", max_length=40)
    meta: LogMeta | None = None
    rounds: list[Any] | None = Field(None, max_length=10_000)
    over: bool = False
    winners: tuple[int, ...] = Field((), max_length=10)


class SeatView(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    seat: int = Field(ge=0, le=9)
    player: str = Field(max_length=40)
    cards: int | None = Field(None, ge=0, le=108)
    score: int | None = None


class StateMessage(_Msg):
    """The retained summary a table keeps on its `state` topic."""

    log: str | None = Field(None, pattern=LOG_RE.pattern)
    seq: int = Field(0, ge=0, le=10**9)
    logs: dict[str, int] = Field(default_factory=dict, max_length=50)
    round: int = Field(0, ge=0, le=100_000)
    phase: str = Field("", max_length=40)
    turn: int | None = Field(None, ge=0, le=9)
    seats: tuple[SeatView, ...] = Field((), max_length=10)
    players: tuple[str, ...] = Field((), max_length=10)
    part: Literal[0, 1] | None = None
    format: str = Field("standard", max_length=20)
    match_over: bool = False
    dashboard: str | None = Field(None, max_length=200, pattern=r"^https?://[^\s\"'<>]+$")
    updated: float = 0.0

    @field_validator("logs")
    @classmethod
    def _logs(cls, v: dict[str, int]) -> dict[str, int]:
        for name, n in v.items():
            if not LOG_RE.match(name) or not isinstance(n, int) or not 0 <= n <= 10**9:
                raise ValueError(f"logs: bad entry {name!r}: {n!r}")
        return v


class StatusMessage(_Msg):
    status: Literal["online", "offline"]
    since: float | None = None


class ResendRequest(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)

    v: Literal[1]
    log: str = Field(pattern=LOG_RE.pattern)
    from_: int = Field(alias="from", ge=1, le=10**9)


class BadMessage(ValueError):
    pass


def decode(payload: bytes, model: type[BaseModel]) -> Any:
    """Parse one payload; BadMessage says what is wrong in one line."""
    if len(payload) > 1_000_000:
        raise BadMessage(f"{len(payload)} bytes, more than any table sends")
    try:
        data = json.loads(payload)
    except (UnicodeDecodeError, ValueError):
        raise BadMessage("not JSON") from None
    if not isinstance(data, dict):
        raise BadMessage(f"expected a JSON object, got {type(data).__name__}")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise BadMessage(validation_problems(exc)) from None


def encode(data: dict[str, Any]) -> bytes:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()


# ----------------------------------------------------------------------------- client


def new_instance_id() -> str:
    return uuid.uuid4().hex[:16]


def make_client(
    url: BrokerUrl,
    client_id: str,
    *,
    username: str | None = None,
    password: str | None = None,
    tls: TlsConfig | None = None,
    clean_session: bool = True,
    will: tuple[str, bytes] | None = None,
):
    """A paho-mqtt client (MQTT 3.1.1), not yet connected; reconnects by itself once started."""
    import os

    import paho.mqtt.client as mqtt

    client = mqtt.Client(
        callback_api_version=mqtt.CallbackAPIVersion.VERSION2,
        client_id=client_id,
        clean_session=clean_session,
        protocol=mqtt.MQTTv311,
    )
    user = username or url.username
    secret = password or url.password or os.environ.get("UNO_TABLE_MQTT_PASSWORD")
    if user:
        client.username_pw_set(user, secret)
    if url.tls or tls is not None:
        t = tls or TlsConfig()
        client.tls_set(
            ca_certs=str(t.ca_certs) if t.ca_certs else None,
            certfile=str(t.certfile) if t.certfile else None,
            keyfile=str(t.keyfile) if t.keyfile else None,
            cert_reqs=ssl.CERT_REQUIRED,
        )
        if t.insecure:
            client.tls_insecure_set(True)
    if will is not None:
        client.will_set(will[0], will[1], qos=1, retain=True)
    client.reconnect_delay_set(min_delay=1, max_delay=5)
    client.max_inflight_messages_set(100)
    return client


def reason_text(rc: Any) -> str:
    """A paho reason code or error number in words."""
    import paho.mqtt.client as mqtt

    if isinstance(rc, int):
        return mqtt.error_string(rc)
    return str(rc)
