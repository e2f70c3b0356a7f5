"""Start a head and more nodes with ``ray start`` on 127.0.0.1; lose a node; stop like ``ray stop``.

Why not ``ray stop``: it stops every Ray process of the machine (it scans them all by
name), including other clusters that share the machine. Every process this cluster
starts carries ``PROOFSEARCH_RAY_NODE=<folder>:<node>`` in its environment (Ray's
processes pass their environment on to the workers and the workers to the provers;
what sets its title may overwrite it, so everything below a marked process counts too),
so :meth:`RayStartCluster.stop` can do what ``ray stop`` does (SIGTERM to the raylets, then
the other Ray processes, then the GCS, SIGKILL after a grace period) to this cluster
only, and :meth:`RayStartCluster.leftovers` can list whatever survived it.

The cluster's ``HOME`` is a folder of its own, so its token is
``<folder>/home/.ray/auth_token``, the file Ray looks for, and no other cluster's.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

MARKER = "PROOFSEARCH_RAY_NODE"


class ClusterStartError(Exception):
    """``ray start`` failed: the message holds its output."""


@dataclass(frozen=True)
class StartedNode:
    """One ``ray start`` node: its name here, folder and node-manager port (its key in Ray)."""

    name: str
    temp_dir: Path
    node_manager_port: int
    head: bool


def free_port() -> int:
    """A TCP port nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class RayStartCluster:
    """A cluster of ``ray start`` processes on this machine (use it as a context manager)."""

    def __init__(
        self,
        *,
        token: bool = True,
        system_config: Mapping[str, Any] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        # Short on purpose: Ray's socket paths under it must fit in 107 bytes.
        self.root = Path(tempfile.mkdtemp(prefix="psray-", dir="/tmp"))
        self.home = self.root / "home"
        self.home.mkdir()
        if token:  # what `ray get-auth-token --generate` writes: 32 random bytes in hex
            token_file = self.home / ".ray" / "auth_token"
            token_file.parent.mkdir()
            token_file.write_text(secrets.token_hex(32))
            token_file.chmod(0o600)
        self._ports: set[int] = set()
        self.port = self._new_port()
        self.system_config = dict(system_config or {})
        self.extra_env = dict(env or {})
        self.nodes: dict[str, StartedNode] = {}
        self._started = 0  # nodes ever started: new nodes get new names and folders
        self._stopped: list[psutil.Process] = []
        self._ray = str(Path(sys.executable).with_name("ray"))

    @property
    def address(self) -> str:
        """What ``ray start --head`` prints and ``--address`` takes."""
        return f"127.0.0.1:{self.port}"

    def user_env(self, **extra: str) -> dict[str, str]:
        """The environment of a user's shell on this cluster's machine: its ``HOME``, no
        ``RAY_*`` variable (the caller's own Ray, if any, set some), plus ``extra``."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
        env.update(self.extra_env)
        env.update(HOME=str(self.home), **{MARKER: f"{self.root}:client"})
        env.update(extra)
        return env

    def start_head(self, num_cpus: int) -> StartedNode:
        args = ["--head", f"--port={self.port}", "--include-dashboard=false"]
        if self.system_config:
            args.append(f"--system-config={json.dumps(self.system_config)}")
        return self._start("head", num_cpus, args, {})

    def add_node(self, num_cpus: int, name: str | None = None) -> StartedNode:
        """Another node joins the head, as ``ray start --address`` does on another machine.

        Ray's ``ray start --address`` sends the token only with ``RAY_AUTH_MODE=token``
        (``ray start --head`` and proofsearch find out for themselves).
        """
        name = name or f"node{self._started + 1}"
        auth = {"RAY_AUTH_MODE": "token"} if self._has_token() else {}
        return self._start(name, num_cpus, [f"--address={self.address}"], auth)

    def _new_port(self) -> int:
        """A free port this cluster has not handed out yet.

        A port handed out is not listened on until ``ray start`` runs, so the kernel may
        offer it again; Ray refuses to start when two of its components share one.
        """
        port = free_port()
        while port in self._ports:
            port = free_port()
        self._ports.add(port)
        return port

    def _has_token(self) -> bool:
        return (self.home / ".ray" / "auth_token").exists()

    def _start(self, name: str, num_cpus: int, args: list[str], env: dict[str, str]) -> StartedNode:
        temp_dir = self.root / name
        port = self._new_port()
        command = [
            self._ray, "start", *args, f"--num-cpus={num_cpus}", "--num-gpus=0",
            "--node-ip-address=127.0.0.1", f"--temp-dir={temp_dir}",
            f"--node-manager-port={port}",
            f"--dashboard-agent-listen-port={self._new_port()}",
            "--disable-usage-stats", "--log-style=record",
        ]  # fmt: skip
        node_env = self.user_env(**env, **{MARKER: f"{self.root}:{name}"})
        done = subprocess.run(
            command, env=node_env, capture_output=True, text=True, check=False, timeout=120
        )
        if done.returncode != 0:
            raise ClusterStartError(
                f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
            )
        node = StartedNode(name, temp_dir, port, head=not self._started)
        self._started += 1
        self.nodes[name] = node
        return node

    def processes(self, node: str | None = None) -> list[psutil.Process]:
        """Live processes of this cluster (or of one node, or ``"client"``: the users').

        Those that carry the marker, and everything below them: a process that sets its
        title (Ray's agents do) can overwrite the environment that /proc shows.
        """
        wanted = f"{self.root}:{node}" if node else None
        found: dict[int, psutil.Process] = {}
        for process in psutil.process_iter():
            try:
                value = process.environ().get(MARKER, "")
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
            if value == wanted or (wanted is None and value.startswith(f"{self.root}:")):
                found[process.pid] = process
                with contextlib.suppress(psutil.NoSuchProcess):
                    found.update((p.pid, p) for p in process.children(recursive=True))
        return [p for p in found.values() if _running(p)]

    def kill_node(self, name: str) -> int:
        """The node's machine is lost: SIGKILL every process of the node; how many there were."""
        victims = self.processes(name)
        for process in victims:
            _signal(process, signal.SIGKILL)
        psutil.wait_procs(victims, timeout=10)
        del self.nodes[name]
        return len(victims)

    def stop(self, grace: float = 15.0) -> None:
        """What ``ray stop`` does, to this cluster's processes only.

        In three rounds (raylets, the other Ray processes, the GCS) every Ray process gets
        SIGTERM, and SIGKILL if it is still there after its share of ``grace`` seconds.
        Processes that are not Ray's (provers started by actors) get no signal: they must
        go on their own when their worker goes.
        """
        from ray.autoscaler._private.constants import RAY_PROCESSES

        self._stopped.extend(self.processes())
        rounds = [RAY_PROCESSES[:1], RAY_PROCESSES[1:-1], RAY_PROCESSES[-1:]]
        for patterns in rounds:
            targets = [p for p in self._known() if _matches(p, patterns)]
            for process in targets:
                _signal(process, signal.SIGTERM)
            _, alive = psutil.wait_procs(targets, timeout=grace / len(rounds))
            for process in alive:
                _signal(process, signal.SIGKILL)
            psutil.wait_procs(alive, timeout=2)
        self._reap()
        self.nodes.clear()

    def _known(self) -> list[psutil.Process]:
        """Live processes of the cluster now, and those seen when it was being stopped
        (a Ray agent whose raylet is gone carries no sign of the cluster any more)."""
        known = {p.pid: p for p in self._stopped if _running(p)}
        known.update((p.pid, p) for p in self.processes())
        return list(known.values())

    def _reap(self) -> None:
        """Collect the exit status of stopped processes that were re-parented to this one.

        Where the caller is a child subreaper (the test suite is), the nodes' processes
        become its children when ``ray start`` exits; unreaped, they would stay zombies.
        """
        psutil.wait_procs(self._stopped, timeout=0)

    def leftovers(self, timeout: float = 30.0) -> list[psutil.Process]:
        """This cluster's processes still alive ``timeout`` seconds from now at the latest."""
        left = self._known()
        _, alive = psutil.wait_procs(left, timeout=timeout)
        self._reap()
        return [p for p in alive if _running(p)]

    def state(self) -> dict[str, Any]:
        """Nodes and actors as the cluster's GCS knows them, asked by a user's process.

        ``{"nodes": {name: {"node_id", "alive"}}, "actors": [{"class", "node_id",
        "state", "job_id"}]}``; a node is named by its node-manager port.
        """
        done = subprocess.run(
            [sys.executable, "-m", "proofsearch.devcluster.cluster_state", self.address],
            env=self.user_env(),
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )
        if done.returncode != 0:
            raise ClusterStartError(f"cannot read the cluster's state:\n{done.stderr}")
        state: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        by_port = {n.node_manager_port: n.name for n in self.nodes.values()}
        state["nodes"] = {
            by_port.get(node["port"], f"port {node['port']}"): node for node in state["nodes"]
        }
        return state

    def close(self) -> None:
        self.stop()
        for process in self.processes():  # the caller checked leftovers() if it cares
            _signal(process, signal.SIGKILL)
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> RayStartCluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _matches(process: psutil.Process, patterns: Iterable[list[Any]]) -> bool:
    """Whether ``ray stop`` would pick ``process``: by name, or by its command line."""
    try:
        name, command = process.name(), subprocess.list2cmdline(process.cmdline())
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return False
    return any(keyword in (name if by_name else command) for keyword, by_name in patterns)


def _running(process: psutil.Process) -> bool:
    """Alive, not a zombie, and still the process it was (not a reused pid)."""
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _signal(process: psutil.Process, signum: int) -> None:
    with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
        process.send_signal(signum)
