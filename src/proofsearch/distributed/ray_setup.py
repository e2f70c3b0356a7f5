"""Starting or joining Ray: quiet, loopback-only when local, with a clear error for long paths.

A local cluster is started on 127.0.0.1 with a small object store (results are small)
and shut down by the run that started it; a cluster given by ``--address`` or
``RAY_ADDRESS`` is only joined and left, in its own authentication mode (token or none,
found out by :mod:`.ray_auth`, which also names the cause of a failed join). Ray's own
output (worker-death notices from the raylet, C++ warnings) is kept out of the progress
display unless ``--verbose``.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import ExitStack, closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from proofsearch.distributed.ray_auth import AUTH_MODE_VAR, ClusterAuthError, follow_cluster_auth
from proofsearch.distributed.watchdog import Watchdog

#: AF_UNIX socket paths are limited to 107 bytes plus the terminating NUL.
MAX_SOCKET_PATH = 107
#: ``session_<YYYY-mm-dd_HH-MM-SS_ffffff>_<pid up to 7 digits>/sockets/plasma_store``.
_SOCKET_SUFFIX = len("/session_2026-01-01_00-00-00_000000_1234567/sockets/plasma_store")

log = logging.getLogger(__name__)


class RaySetupError(Exception):
    """Ray cannot be started or joined as asked (the message says what to change)."""


@dataclass(frozen=True)
class RayOptions:
    """How to reach Ray."""

    #: An existing cluster (``ray start --head`` prints it); ``None``: ``RAY_ADDRESS``
    #: or, failing that, a new local cluster.
    address: str | None = None
    #: Ray's temporary folder (LeanAgent's ``RAY_TMPDIR``, set from ``raid_dir``).
    tmpdir: str | None = None
    verbose: bool = False
    #: CPUs of a new local cluster (default: the machine's).
    num_cpus: int | None = None
    #: GPUs of a new local cluster (default: what Ray detects).
    num_gpus: float | None = None
    object_store_mb: int = 256


def check_socket_path(tmpdir: str) -> None:
    """Fail early, and clearly, where Ray's socket paths would exceed 107 bytes."""
    length = len(os.fsencode(os.path.abspath(tmpdir))) + _SOCKET_SUFFIX
    if length > MAX_SOCKET_PATH:
        budget = MAX_SOCKET_PATH - _SOCKET_SUFFIX
        raise RaySetupError(
            f"--ray-tmpdir {tmpdir!r} is too long: Ray's socket paths under it would be "
            f"{length} bytes, over the {MAX_SOCKET_PATH}-byte limit of Unix sockets. "
            f"Use a folder path of at most {budget} bytes (e.g. /tmp/ray-$USER)."
        )


def _quiet_ray() -> None:
    """Send Ray's driver-side error echo to our logger instead of the terminal."""
    try:
        import ray._private.worker as ray_worker
    except ImportError:  # pragma: no cover - layout of a future Ray
        return

    def to_debug_log(data: dict, ignore_prefix: bool = False) -> None:  # type: ignore[type-arg]
        for line in data.get("lines", []):
            log.debug("ray: %s", line)

    ray_worker.print_to_stdstream = to_debug_log


@contextmanager
def ray_session(options: RayOptions) -> Iterator[bool]:
    """Start or join Ray for the duration of the block; yields whether it was started here.

    A cluster is joined in its own authentication mode (see :mod:`.ray_auth`).
    ``RAY_AUTH_MODE`` is as it was before once the block ends: Ray's own ``ray.init()``
    of a local cluster sets it for the whole process.
    """
    import ray

    if ray.is_initialized():
        yield False
        return
    address = options.address or os.environ.get("RAY_ADDRESS") or None
    if options.tmpdir:
        check_socket_path(options.tmpdir)
        Path(options.tmpdir).mkdir(parents=True, exist_ok=True)
    if not options.verbose:
        os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "error")
        _quiet_ray()
    common = {
        "logging_level": logging.INFO if options.verbose else logging.ERROR,
        "log_to_driver": options.verbose,
        "include_dashboard": False,
    }
    where = f"the Ray cluster at {address}" if address else "a local Ray cluster"
    with ExitStack() as stack:
        stack.callback(_restore_auth_mode, os.environ.get(AUTH_MODE_VAR))
        watchdog = None if address else stack.enter_context(closing(Watchdog()))
        try:
            with _stderr_to_log(not options.verbose):
                if address:
                    stack.enter_context(follow_cluster_auth(address))
                _init(address, options, common)
            if watchdog is not None:
                watchdog.name_session(_session_name())
        except ClusterAuthError as exc:
            raise RaySetupError(f"cannot join {where}: {exc}") from exc
        except (ConnectionError, RuntimeError, ValueError, OSError) as exc:
            raise RaySetupError(f"cannot start or join {where}: {exc}") from exc
        stack.callback(ray.shutdown)
        yield address is None


def _restore_auth_mode(previous: str | None) -> None:
    if os.environ.get(AUTH_MODE_VAR) == previous:
        return
    if previous is None:
        os.environ.pop(AUTH_MODE_VAR, None)
    else:
        os.environ[AUTH_MODE_VAR] = previous
    try:
        from ray._raylet import Config
    except ImportError:  # pragma: no cover - a Ray without this binding
        return
    Config.initialize("")


@contextmanager
def _stderr_to_log(enabled: bool) -> Iterator[None]:
    """Keep Ray's C++ start-up warnings (printed straight to fd 2) off the terminal."""
    if not enabled:
        yield
        return
    import sys
    import tempfile

    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            for line in sink.read().decode("utf-8", "replace").splitlines():
                log.debug("ray start-up: %s", line)


def _session_name() -> str:
    """The name of the Ray session this process started (in its processes' command lines)."""
    import ray

    return str(ray.get_runtime_context().get_session_name())


def _init(address: str | None, options: RayOptions, common: dict[str, Any]) -> None:
    import ray

    with _sigterm_kept():
        if address:
            ray.init(address=address, **common)
        else:
            ray.init(
                num_cpus=options.num_cpus or os.cpu_count() or 1,
                num_gpus=options.num_gpus,
                object_store_memory=options.object_store_mb * 1024 * 1024,
                _node_ip_address="127.0.0.1",
                _temp_dir=os.path.abspath(options.tmpdir) if options.tmpdir else None,
                **common,
            )


@contextmanager
def _sigterm_kept() -> Iterator[None]:
    """SIGTERM handled after ``ray.init`` as before it.

    ``ray.init`` takes SIGTERM over in the driver: a Python handler that exits with status
    15, and, in the C library, its core's failure handler ("*** SIGTERM received at
    time=…" and a stack, status 1). A scheduler's time limit on a ``--workers 2`` run read
    as a crash, where the CLI stops such a run as Ctrl-C does, with 143 and a line saying
    how to go on (audit 51). Setting the handler from before again restores both."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set handlers (a driver inside a library's thread)
        return
    before = signal.getsignal(signal.SIGTERM)
    try:
        yield
    finally:
        if before is not None:
            signal.signal(signal.SIGTERM, before)
