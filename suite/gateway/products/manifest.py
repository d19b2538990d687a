"""Gateway manifests: a real gateway product, how to install it, start it and route it.

Each gateway is a folder `suite/gateway/products/<name>/` holding `gateway.toml` and
the configuration templates it names. A manifest says which package to install
(the peers' `[package]` table, built by the same installer into its own cache
folder, see `scrubcheck.gateway.products.envs`), the command line that serves it on
loopback, the path that answers once it is ready, and its configurations:
the ways a vendor really deploys it, each a config file template, request
headers its clients send, or both. Templates are `string.Template` text with
these fields, filled in at start:

    ${upstream}  the upstream's OpenAI base URL (the replay server, ending in /v1)
    ${port}      the free loopback port the gateway is to listen on
    ${key}       the API key its clients must send (new for every start)
    ${env}       the gateway's environment folder
    ${config}    the rendered config file (command line only)
    ${node}      the node executable (command line only)
    ${folder}    the manifest's folder, for files shipped beside it (command line only)

Loading validates everything a typo could break, naming file and key.
"""

from __future__ import annotations

import re
import string
import tomllib
from dataclasses import dataclass
from pathlib import Path

from scrubcheck.peers.manifest import ManifestError, Package, parse_package

_NAME = re.compile(r"^[a-z0-9][a-z0-9.-]*$")
_TOP_KEYS = {"name", "title", "homepage", "command", "ready", "base_path", "start_timeout_s",
             "default_config", "env", "package", "configs", "notes"}
_CONFIG_KEYS = {"title", "file", "headers", "reasoning"}
#: Fields a template may use; the command line also gets config and node.
FIELDS = frozenset({"upstream", "port", "key", "env"})
COMMAND_FIELDS = FIELDS | {"config", "node", "folder"}


class GatewayManifestError(Exception):
    """A gateway manifest, or a NAME[:CONFIG] choice, that cannot be used (a usage error)."""


@dataclass(frozen=True)
class GatewayConfig:
    """One way of deploying the gateway."""

    name: str
    title: str  # what a vendor deploys, in words
    reasoning: str  # what this configuration is expected to do with reasoning (documentation)
    file: Path | None = None  # config template rendered at start, absolute
    headers: tuple[tuple[str, str], ...] = ()  # sent by clients with every request (templates)


@dataclass(frozen=True)
class GatewayManifest:
    name: str
    title: str
    homepage: str
    package: Package
    command: tuple[str, ...]  # templates (COMMAND_FIELDS)
    ready: str  # a GET path that answers 200 once the gateway serves
    base_path: str  # appended to http://127.0.0.1:PORT for the clients' base URL
    start_timeout_s: float
    default_config: str
    configs: tuple[GatewayConfig, ...]
    env: tuple[tuple[str, str], ...] = ()  # the gateway's environment (besides the basics)
    notes: tuple[str, ...] = ()  # how it is run here, in words (shown by `gateways list`)
    folder: Path = Path(".")

    def config(self, name: str | None) -> GatewayConfig:
        """The named configuration (the default when None)."""
        wanted = name or self.default_config
        for config in self.configs:
            if config.name == wanted:
                return config
        known = ", ".join(c.name for c in self.configs)
        raise GatewayManifestError(f"gateway {self.name} has no configuration {wanted!r} "
                                   f"(it has: {known})")

    @property
    def install_command(self) -> str:
        return f"scrubcheck gateways install {self.name}"


def shipped_dir() -> Path:
    """The folder of the gateway manifests shipped with scrubcheck."""
    return Path(__file__).resolve().parent


def shipped_gateways() -> list[GatewayManifest]:
    """Every shipped gateway, by name; raises GatewayManifestError on a broken manifest."""
    return [load_gateway(path) for path in sorted(shipped_dir().glob("*/gateway.toml"))]


def find_gateway(name: str) -> GatewayManifest:
    """A shipped gateway by name."""
    path = shipped_dir() / name / "gateway.toml"
    if not _NAME.match(name) or not path.is_file():
        known = ", ".join(m.name for m in shipped_gateways())
        raise GatewayManifestError(f"unknown gateway {name!r} (shipped gateways: {known})")
    return load_gateway(path)


def parse_choice(text: str) -> tuple[GatewayManifest, GatewayConfig]:
    """`NAME` or `NAME:CONFIG` -> the manifest and the configuration."""
    name, _, config = text.partition(":")
    manifest = find_gateway(name)
    return manifest, manifest.config(config or None)


def load_gateway(path: Path) -> GatewayManifest:
    """Read and validate one gateway.toml."""
    path = Path(path).resolve()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise GatewayManifestError(f"{path}: {exc}") from exc
    try:
        return _validate(data, path)
    except GatewayManifestError as exc:
        raise GatewayManifestError(f"{path}: {exc}") from None


def _validate(data: dict, path: Path) -> GatewayManifest:
    unknown = set(data) - _TOP_KEYS
    if unknown:
        raise GatewayManifestError(f"unknown key(s) {', '.join(sorted(unknown))}")
    for key in ("name", "title", "homepage", "ready", "default_config"):
        if not isinstance(data.get(key), str) or not data[key]:
            raise GatewayManifestError(f"{key} is required and must be a non-empty string")
    name = data["name"]
    if not _NAME.match(name) or path.parent.name != name:
        raise GatewayManifestError(f"name {name!r} must be lower case and equal its folder "
                                   f"{path.parent.name!r}")
    command = _strings(data.get("command"), "command")
    if not command:
        raise GatewayManifestError("command must be a non-empty list of strings")
    for part in command:
        _check_template(part, COMMAND_FIELDS, "command")
    timeout = data.get("start_timeout_s", 60)
    if not isinstance(timeout, int | float) or timeout <= 0:
        raise GatewayManifestError("start_timeout_s must be a positive number")
    try:
        package = parse_package(data.get("package"), path)
    except ManifestError as exc:  # already names the file
        raise GatewayManifestError(str(exc).removeprefix(f"{path}: ")) from None
    if package.ecosystem == "none":
        raise GatewayManifestError("[package] is required: a gateway is a real product")
    configs = _configs(data.get("configs"), path.parent)
    manifest = GatewayManifest(
        name=name, title=data["title"], homepage=data["homepage"], package=package,
        command=command, ready=data["ready"], base_path=str(data.get("base_path", "/v1")),
        start_timeout_s=float(timeout), default_config=data["default_config"],
        configs=configs, env=tuple(sorted(_table(data.get("env"), "env").items())),
        notes=_strings(data.get("notes", []), "notes"), folder=path.parent)
    manifest.config(None)  # the default must exist
    return manifest


def _configs(raw: object, folder: Path) -> tuple[GatewayConfig, ...]:
    if not isinstance(raw, dict) or not raw:
        raise GatewayManifestError("[configs.NAME] tables are required (at least one)")
    configs = []
    for name, table in raw.items():
        where = f"[configs.{name}]"
        if not _NAME.match(name) or not isinstance(table, dict):
            raise GatewayManifestError(f"{where}: a lower-case name and a table")
        unknown = set(table) - _CONFIG_KEYS
        if unknown:
            raise GatewayManifestError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
        for key in ("title", "reasoning"):
            if not isinstance(table.get(key), str) or not table[key]:
                raise GatewayManifestError(f"{where}: {key} is required")
        file = None
        if "file" in table:
            file = (folder / str(table["file"])).resolve()
            if not file.is_file():
                raise GatewayManifestError(f"{where}: file {table['file']!r} not found")
            _check_template(file.read_text(encoding="utf-8"), FIELDS, f"{where} {file.name}")
        headers = _table(table.get("headers"), f"{where} headers")
        for value in headers.values():
            _check_template(value, FIELDS, f"{where} headers")
        configs.append(GatewayConfig(name, table["title"], table["reasoning"], file,
                                     tuple(headers.items())))
    return tuple(configs)


def _strings(value: object, key: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise GatewayManifestError(f"{key} must be a list of strings")
    return tuple(value)


def _table(value: object, key: str) -> dict[str, str]:
    value = {} if value is None else value
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise GatewayManifestError(f"{key} must be a table of strings")
    return value


def _check_template(text: str, fields: frozenset[str], where: str) -> None:
    """Refuse a template that names an unknown field or misuses `$`, now rather than at start."""
    template = string.Template(text)
    if not template.is_valid():
        raise GatewayManifestError(f"{where}: a `$` that is not ${{FIELD}} (write $$ for $)")
    unknown = set(template.get_identifiers()) - fields
    if unknown:
        raise GatewayManifestError(f"{where}: unknown field(s) {', '.join(sorted(unknown))} "
                                   f"(known: {', '.join(sorted(fields))})")


def render(text: str, values: dict[str, str]) -> str:
    """A template with its fields filled in."""
    return string.Template(text).substitute(values)
