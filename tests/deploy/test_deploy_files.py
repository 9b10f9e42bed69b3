"""The deployment files match the code: every command they run parses with the ``cardroom``
CLI, every ``CARDROOM_*`` variable they set is one the code reads, and every port they name
(exposed, probed, targeted, dialled) is the port the service they start listens on."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import yaml

from services.cli import build_parser
from services.common.settings import ServerSettings, from_env

ROOT = Path(__file__).parents[2]
DEPLOY = ROOT / "deploy"
SERVICES = ("engine", "replay", "matchmaker")


def known_variables() -> set[str]:
    """Every CARDROOM_* name the code reads: the settings' per-service and shared names, and
    the names the sources spell out."""
    names: set[str] = set()
    for field in dataclasses.fields(ServerSettings):
        if field.name != "service":
            names.add(f"CARDROOM_{field.name.upper()}")
            names |= {f"CARDROOM_{s.upper()}_{field.name.upper()}" for s in SERVICES}
    for path in (ROOT / "services").rglob("*.py"):
        if "gen" not in path.parts:
            names |= set(re.findall(r"CARDROOM_[A-Z0-9_]*[A-Z0-9]", path.read_text()))
    return names


KNOWN = known_variables()


def resolve(value: Any) -> str:
    """A compose value with its ${VAR:-default} / ${VAR:?message} interpolations resolved as if
    the variable were unset (a required one gets a placeholder)."""
    text = str(value)
    text = re.sub(r"\$\{[A-Z0-9_]+:-([^}]*)\}", r"\1", text)
    return re.sub(r"\$\{[A-Z0-9_]+:\?[^}]*\}", "placeholder", text)


@dataclasses.dataclass
class Started:
    """One container running a ``cardroom`` command."""

    where: str
    argv: list[str]
    env: dict[str, str]
    ports: set[int]

    def parsed(self) -> Any:
        return build_parser().parse_args(self.argv)  # exits 2 (SystemExit) on a bad command

    def settings(self) -> ServerSettings | None:
        args = self.parsed()
        if not args._target.endswith(" serve"):
            return None
        service = args._target.split()[0]
        names = {f.name for f in dataclasses.fields(ServerSettings)}
        given = {k: v for k, v in vars(args).items() if k in names and v is not None}
        return from_env(service, self.env).replace(**given)


def check(started: Started, addresses: dict[str, int]) -> None:
    unknown = {k for k in started.env if k.startswith("CARDROOM_")} - KNOWN
    assert not unknown, f"{started.where}: variables the code never reads: {sorted(unknown)}"
    args = started.parsed()
    settings = started.settings()
    if settings is not None:
        assert settings.host == "0.0.0.0", f"{started.where} listens on localhost only"
        assert settings.port in started.ports, f"{started.where}: gRPC port not exposed"
        if settings.metrics_port:
            assert settings.metrics_port in started.ports, f"{started.where}: metrics port"
    if settings is None:
        return  # a tool (db upgrade; health checks its own container, checked by the caller)
    # Addresses a server dials name a service of the file, on the port that one serves.
    dialled = [getattr(args, name, None) for name in ("engine", "replay")]
    dialled += [started.env.get(f"CARDROOM_{s.upper()}_ADDR") for s in ("engine", "replay")]
    for address in filter(None, dialled):
        host, _, port = str(address).rpartition(":")
        assert host in addresses, f"{started.where} dials {address}: no such service"
        assert int(port) == addresses[host], f"{started.where} dials {address}: wrong port"


# --------------------------------------------------------------------------- compose
def image_env() -> dict[str, str]:
    """The CARDROOM_* variables the image itself sets (ENV in the Dockerfile)."""
    text = (DEPLOY / "Dockerfile").read_text()
    return dict(re.findall(r"(CARDROOM_[A-Z0-9_]+)=(\S+)", text))


def compose_started() -> tuple[list[Started], dict[str, int]]:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    started, addresses = [], {}
    for name, svc in compose["services"].items():
        if svc.get("image", "").startswith("cardroom"):
            env = image_env()
            env |= {k: resolve(v) for k, v in (svc.get("environment") or {}).items()}
            ports = {int(str(p).split(":")[-1]) for p in svc.get("expose", [])}
            ports |= {int(str(p).split(":")[-1]) for p in svc.get("ports", [])}
            s = Started(f"compose {name}", list(svc["command"]), env, ports)
            started.append(s)
            settings = s.settings()
            if settings is not None:
                addresses[name] = settings.port
            health = svc.get("healthcheck", {}).get("test")
            if health:
                assert health[:2] == ["CMD", "cardroom"], name
                started.append(Started(f"compose {name} health", health[2:], env, ports))
    return started, addresses


def test_compose_runs_what_the_cli_has() -> None:
    started, addresses = compose_started()
    for s in started:
        check(s, addresses)
    commands = [" ".join(s.argv[:2]) for s in started]
    assert commands.count("engine serve") == 2 and commands.count("matchmaker serve") == 2
    assert commands.count("replay serve") == 1 and "db upgrade" in commands
    # Health checks probe the port their own container serves.
    for s in started:
        if s.argv[0] == "health":
            service = s.argv[s.argv.index("--only") + 1]
            port = int(s.argv[s.argv.index(f"--{service}") + 1].rpartition(":")[2])
            assert port in s.ports, s.where
    # The matchmakers share the engines' key set: one value for every engine.
    keys = {s.env.get("CARDROOM_ENGINE_KEYS") for s in started if s.argv[:1] == ["engine"]}
    assert len(keys) == 1


# --------------------------------------------------------------------------- kubernetes
def k8s_documents() -> list[dict[str, Any]]:
    docs: list[dict[str, Any]] = []
    for path in sorted((DEPLOY / "k8s").glob("*.yaml")):
        docs += [d for d in yaml.safe_load_all(path.read_text()) if d]
    return docs


def test_kubernetes_manifests_run_what_the_cli_has() -> None:
    docs = k8s_documents()
    deployments = [d for d in docs if d["kind"] == "Deployment"]
    services = [d for d in docs if d["kind"] == "Service"]
    jobs = [d for d in docs if d["kind"] == "Job"]
    ports_of: dict[str, set[int]] = {}
    addresses: dict[str, int] = {}
    started = []
    for d in deployments + jobs:
        for c in d["spec"]["template"]["spec"]["containers"]:
            env = {e["name"]: str(e.get("value", "secret")) for e in c.get("env", [])}
            ports = {p["containerPort"] for p in c.get("ports", [])}
            s = Started(f"k8s {d['metadata']['name']}", list(c["args"]), env, ports)
            started.append(s)
            settings = s.settings()
            if settings is None:
                continue
            label = d["spec"]["template"]["metadata"]["labels"]["app"]
            ports_of[label] = ports
            assert c["readinessProbe"]["grpc"]["port"] == settings.port, s.where
            for svc in services:
                if svc["spec"]["selector"]["app"] == label:
                    addresses[svc["metadata"]["name"]] = settings.port
    for s in started:
        check(s, addresses)
    for svc in services:
        ports = ports_of[svc["spec"]["selector"]["app"]]
        for p in svc["spec"]["ports"]:
            assert p["targetPort"] in ports, svc["metadata"]["name"]
    assert [s.argv for s in started if s.where.endswith("db-upgrade")] == [["db", "upgrade"]]


def test_dockerfile_has_the_cardroom_entry_point_and_every_port() -> None:
    text = (DEPLOY / "Dockerfile").read_text()
    assert 'ENTRYPOINT ["cardroom"]' in text
    exposed = {int(p) for line in re.findall(r"^EXPOSE (.+)$", text, re.M) for p in line.split()}
    started, _ = compose_started()
    for s in started:
        settings = s.settings()
        if settings is not None:
            assert settings.port in exposed and settings.metrics_port in exposed, s.where
    for name in re.findall(r"CARDROOM_[A-Z0-9_]+", text):
        assert name in KNOWN, name
