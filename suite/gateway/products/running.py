"""Start a real gateway on loopback, wait until it answers, and always stop it.

    with running_gateway("litellm-proxy", "plain", upstream.url) as gateway:
        client = openai.OpenAI(base_url=gateway.base_url, api_key=gateway.api_key,
                               default_headers=gateway.headers)

Why each step is as it is:

- The gateway runs in a session (process group) of its own, so stopping it
  reaches every process it started (a server that forks workers included),
  and is killed by the kernel when the Python process that started it dies
  (PR_SET_PDEATHSIG, as the peers), so not even `kill -9` of scrubcheck
  leaves a gateway serving.
- Its environment is built from scratch (PATH, HOME, locale, certificates,
  then the manifest's variables): a user's API keys, database URLs and HTTP
  proxy settings must not reach a product under test, and its requests to the
  replay server must not go through a proxy.
- It must listen on loopback only: after it answers, every socket its
  processes listen on is checked, and a gateway listening on any other
  address is stopped and reported, whatever its configuration says.
- Its stdout and stderr go to a bounded log (the peers' `StderrLog`), whose
  tail is quoted when it does not start.
- The config file rendered for a start holds that start's key and is removed
  with its temporary folder when the gateway stops.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from scrubcheck.childprocess import die_with_parent, exit_text
from scrubcheck.deadline import Deadline
from scrubcheck.gateway.products.envs import gateway_env, installed, logs_dir
from scrubcheck.gateway.products.manifest import (
    GatewayConfig,
    GatewayManifest,
    find_gateway,
    render,
)
from scrubcheck.peers.logs import StderrLog

LOOPBACK = "127.0.0.1"
#: Variables passed on from the caller's environment; everything else is left out.
BASIC_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "SSL_CERT_FILE",
             "SSL_CERT_DIR")
TAIL = 2000  # characters of the gateway's output quoted when it does not start
STOP_GRACE_S = 5.0  # SIGTERM first; SIGKILL after this
PORT_ATTEMPTS = 3  # another free port when the one picked was taken meanwhile


class GatewayError(Exception):
    """A gateway that is not installed, does not start, or listens beyond loopback."""


@dataclass(frozen=True)
class Endpoint:
    """A running gateway, as its clients address it."""

    gateway: str
    config: str
    base_url: str  # the clients' OpenAI base URL
    api_key: str  # the key this start requires (placeholder when the gateway checks none)
    headers: dict[str, str] = field(default_factory=dict)  # sent with every request
    pid: int = 0
    log: Path | None = None

    @property
    def label(self) -> str:
        return f"{self.gateway}:{self.config}"

    def route(self, model: str = "{id}") -> str:
        """A `gateway audit` route template: the model, then this configuration's headers."""
        return " ".join([f"model={model}", *(f"header:{k}={v}" for k, v in self.headers.items())])


@contextmanager
def running_gateway(name: str | GatewayManifest, config: str | None, upstream_url: str, *,
                    start_timeout_s: float | None = None) -> Iterator[Endpoint]:
    """Start gateway `name` in configuration `config` (its default when None) with
    `upstream_url` (an OpenAI base URL ending in /v1) as its upstream; yield its endpoint
    once it answers; stop it on leaving the block, by error or Ctrl-C too."""
    manifest = name if isinstance(name, GatewayManifest) else find_gateway(name)
    chosen = manifest.config(config)
    if installed(manifest) is None:
        raise GatewayError(f"gateway {manifest.name} is not installed: run "
                           f"`{manifest.install_command}`")
    log = StderrLog(logs_dir(), f"{manifest.name}-{chosen.name}")
    timeout = start_timeout_s or manifest.start_timeout_s
    with tempfile.TemporaryDirectory(prefix="scrubcheck-gateway-") as tmp:
        for attempt in range(1, PORT_ATTEMPTS + 1):
            port = free_port()
            values = _values(manifest, chosen, upstream_url, port, Path(tmp))
            proc = _start(manifest, values, log)
            try:
                _wait_ready(manifest, chosen, proc, port, timeout, log)
            except _PortTaken:
                stop(proc)
                if attempt == PORT_ATTEMPTS:
                    raise GatewayError(f"{manifest.name}:{chosen.name}: every port picked was "
                                       f"taken before it could listen; its output (tail):\n"
                                       f"{log.tail(TAIL)}") from None
                continue
            except BaseException:
                stop(proc)
                raise
            try:
                _check_loopback(manifest, chosen, proc.pid)
                yield Endpoint(manifest.name, chosen.name,
                               f"http://{LOOPBACK}:{port}{manifest.base_path}", values["key"],
                               {k: render(v, values) for k, v in chosen.headers}, proc.pid,
                               log.path)
            finally:
                stop(proc)
            return


def free_port() -> int:
    """A loopback port nobody listens on now (the gateway binds it a moment later)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((LOOPBACK, 0))
        return probe.getsockname()[1]


def _values(manifest: GatewayManifest, config: GatewayConfig, upstream_url: str, port: int,
            tmp: Path) -> dict[str, str]:
    values = {"upstream": upstream_url.rstrip("/"), "port": str(port),
              "key": "sk-scrubcheck-" + secrets.token_hex(12),
              "env": str(gateway_env(manifest)), "node": shutil.which("node") or "node",
              "folder": str(manifest.folder), "config": ""}
    if config.file is not None:
        rendered = tmp / config.file.name
        rendered.write_text(render(config.file.read_text(encoding="utf-8"), values),
                            encoding="utf-8")
        rendered.chmod(0o600)  # it holds the key
        values["config"] = str(rendered)
    return values


def gateway_environment(manifest: GatewayManifest) -> dict[str, str]:
    """The gateway's whole environment: the basics, then the manifest's variables."""
    env = {k: os.environ[k] for k in BASIC_ENV if k in os.environ}
    env.update(dict(manifest.package.env))
    env.update(dict(manifest.env))
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost,::1"
    return env


def _start(manifest: GatewayManifest, values: dict[str, str],
           log: StderrLog) -> subprocess.Popen:
    argv = [render(part, values) for part in manifest.command]
    with log.open_for_start() as out:
        out.write(f"$ {' '.join(argv)}\n".encode())
        out.flush()
        try:
            return subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                cwd=str(gateway_env(manifest)), env=gateway_environment(manifest),
                start_new_session=True,
                preexec_fn=die_with_parent if sys.platform.startswith("linux") else None)
        except OSError as exc:
            raise GatewayError(f"{manifest.name}: cannot start {argv[0]}: {exc} (reinstall: "
                               f"`{manifest.install_command} --force`)") from exc


class _PortTaken(Exception):
    pass


def _wait_ready(manifest: GatewayManifest, config: GatewayConfig, proc: subprocess.Popen,
                port: int, timeout: float, log: StderrLog) -> None:
    """Return once GET `ready` answers 200; raise GatewayError when the gateway exits or
    the time is up, quoting its output."""
    url = f"http://{LOOPBACK}:{port}{manifest.ready}"
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never a proxy
    deadline = Deadline(timeout)
    last = "no answer yet"
    while True:
        code = proc.poll()
        if code is not None:
            tail = log.tail(TAIL)
            if "address already in use" in tail.lower() or "eaddrinuse" in tail.lower():
                raise _PortTaken()
            raise GatewayError(f"{manifest.name}:{config.name} exited while starting "
                               f"({exit_text(code)}); its output (tail):\n{tail}")
        try:
            with opener.open(url, timeout=2) as answer:
                if answer.status == 200:
                    return
                last = f"HTTP {answer.status}"
        except urllib.error.HTTPError as exc:
            last = f"HTTP {exc.code}"
        except (urllib.error.URLError, OSError) as exc:
            last = str(getattr(exc, "reason", exc))
        if deadline.passed():
            raise GatewayError(f"{manifest.name}:{config.name} did not answer GET {url} within "
                               f"{timeout:.0f} s (last: {last}); stopped it; its output "
                               f"(tail):\n{log.tail(TAIL)}")
        time.sleep(0.25)


def listening_addresses(pid: int) -> list[tuple[str, int]]:
    """(address, port) of every listening TCP socket of `pid` and its descendants."""
    import psutil

    try:
        root = psutil.Process(pid)
        processes = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []
    found = set()
    for process in processes:
        try:
            for conn in process.net_connections(kind="inet"):
                if conn.status == psutil.CONN_LISTEN:
                    found.add((conn.laddr.ip, conn.laddr.port))
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return sorted(found)


def _check_loopback(manifest: GatewayManifest, config: GatewayConfig, pid: int) -> None:
    wide = [f"{ip}:{port}" for ip, port in listening_addresses(pid)
            if not ipaddress.ip_address(ip.split("%")[0]).is_loopback]
    if wide:
        raise GatewayError(f"{manifest.name}:{config.name} listens on {', '.join(wide)}, not "
                           "on loopback only; stopped it (fix its command line or config)")


def stop(proc: subprocess.Popen) -> None:
    """End the gateway and every process in its session: SIGTERM, then SIGKILL."""
    group = proc.pid  # start_new_session: the leader's pid is the group's id
    _signal_group(group, signal.SIGTERM)
    try:
        proc.wait(timeout=STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        pass
    _signal_group(group, signal.SIGKILL)  # whatever is left of the group, leader or not
    proc.wait()


def _signal_group(group: int, sig: int) -> None:
    try:
        os.killpg(group, sig)
    except (ProcessLookupError, PermissionError):
        pass  # nothing left in the group
