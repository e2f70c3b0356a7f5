"""Joining a Ray cluster under its own authentication mode, with a clear error when it cannot be.

Ray (2.52 and later) protects a cluster with a shared token when its head starts in
token mode; ``ray start --head`` does so whenever a token exists on the head
(``~/.ray/auth_token``, written by ``ray get-auth-token --generate`` or by any local
``ray.init()``). A driver sends the token only when ``RAY_AUTH_MODE=token`` is set in
its environment: ``ray.init(address=HOST:PORT)`` without it waits 20 s and fails with
"Failed to connect". A driver in token mode cannot work with a cluster that has
authentication off either: the cluster's workers send no token, so actors die.

So before joining, :func:`follow_cluster_auth` asks the cluster's GCS one question
without a token, and puts this process in the cluster's mode: token mode, with the
token found where Ray looks for it (``RAY_AUTH_TOKEN``, the file named by
``RAY_AUTH_TOKEN_PATH``, else ``~/.ray/auth_token``), or no authentication. A
``RAY_AUTH_MODE`` set by the user is respected, and checked against the cluster's.
Authentication is never turned off where the cluster uses it. Every failure (nothing
listening, no token, the wrong token, a mode that does not match) is one message that
names the cause and the fix, within seconds.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

AUTH_MODE_VAR = "RAY_AUTH_MODE"
TOKEN_VAR = "RAY_AUTH_TOKEN"
TOKEN_PATH_VAR = "RAY_AUTH_TOKEN_PATH"
#: Seconds to wait for the head's port to accept a connection.
CONNECT_TIMEOUT = 5.0
#: Milliseconds for the GCS's answer to the authentication question. A head answers in
#: milliseconds, a loaded one in seconds; only a port that is not a Ray head waits it out.
PROBE_TIMEOUT_MS = 15000

#: How to share the head's token; ends every token error.
SHARE_TOKEN = (
    "Copy the head's token here: `ray get-auth-token` on the head prints it; put it in "
    "~/.ray/auth_token on this machine (or set RAY_AUTH_TOKEN, or RAY_AUTH_TOKEN_PATH to "
    "a file that holds it)."
)


class ClusterAuthError(Exception):
    """The cluster cannot be joined as things stand: the message says why and what to do."""


def token_source() -> str:
    """Where Ray takes the token from, in its documented order of precedence."""
    if os.environ.get(TOKEN_VAR):
        return f"the {TOKEN_VAR} variable"
    path = os.environ.get(TOKEN_PATH_VAR)
    if path:
        return f"{path} (named by {TOKEN_PATH_VAR})"
    return str(Path.home() / ".ray" / "auth_token")


def gcs_address(address: str) -> str | None:
    """``address`` as Ray's ``host:port`` (``auto`` resolved), or ``None`` for Ray Client."""
    if address.startswith("ray://"):
        return None  # Ray Client: a proxy with its own connection rules
    from ray._private.services import canonicalize_bootstrap_address

    try:
        resolved: str | None = canonicalize_bootstrap_address(address)
    except ValueError as exc:
        raise ClusterAuthError(f"{address!r} is not a Ray address (HOST:PORT): {exc}") from exc
    if resolved is None:
        raise ClusterAuthError(
            f"no running Ray cluster found for address {address!r}: start one with "
            "`ray start --head --port=6379`, or give its HOST:PORT"
        )
    port = resolved.rpartition(":")[2]
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ClusterAuthError(f"{address!r}: the port must be a number from 1 to 65535")
    return resolved


def check_reachable(address: str) -> None:
    """Fail within seconds where nothing listens at ``address`` (Ray would wait 20 s)."""
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), CONNECT_TIMEOUT):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise ClusterAuthError(
            f"nothing answers at {address} ({reason}): start the head there with "
            f"`ray start --head --port={port}`, or check the address and that the port "
            "is open from this machine"
        ) from exc


@contextmanager
def follow_cluster_auth(address: str) -> Iterator[None]:
    """Put this process in the authentication mode of the cluster at ``address``.

    The process's previous mode comes back when the block ends, so that a later run in
    the same process (a test suite, a notebook) starts from the user's settings.
    """
    resolved = gcs_address(address)
    if resolved is None:
        yield
        return
    check_reachable(resolved)
    try:
        from ray._raylet import AuthenticationTokenLoader  # noqa: F401
    except ImportError:  # a Ray older than token authentication (2.52)
        yield
        return
    previous = os.environ.get(AUTH_MODE_VAR)
    try:
        _set_mode(_cluster_mode(resolved, previous))
        yield
    finally:
        _set_mode(previous)


def _cluster_mode(address: str, user_mode: str | None) -> str | None:
    """The mode to join in (``"token"`` or the user's own), after checking it works."""
    wants_token = not _accepted(address, "disabled")
    explicit = (user_mode or "").lower()
    if not wants_token:
        if explicit == "token":
            raise ClusterAuthError(
                "the cluster runs without token authentication, but "
                f"{AUTH_MODE_VAR}=token is set here, and Ray cannot mix the two (actors "
                "fail). Either start the cluster with authentication (a token in "
                "~/.ray/auth_token on the head, then `ray start --head`), or unset "
                f"{AUTH_MODE_VAR} here to join it without authentication."
            )
        return user_mode
    if user_mode is not None and explicit != "token":
        raise ClusterAuthError(
            "the cluster requires token authentication, but "
            f"{AUTH_MODE_VAR}={user_mode} is set here. Unset {AUTH_MODE_VAR} (proofsearch "
            "then follows the cluster), or set it to token."
        )
    _set_mode("token")
    missing = _missing_token()
    if missing:
        raise ClusterAuthError(
            "the cluster requires token authentication, and no token "
            f"was found here ({missing}). {SHARE_TOKEN}"
        )
    if not _accepted(address, "token"):
        raise ClusterAuthError(
            f"the cluster rejected the token from {token_source()}: it "
            f"is not the token the cluster was started with. {SHARE_TOKEN}"
        )
    return "token"


def _missing_token() -> str | None:
    """Why no token can be loaded in token mode, or ``None`` when one can."""
    from ray._raylet import AuthenticationTokenLoader
    from ray.exceptions import AuthenticationError

    path = os.environ.get(TOKEN_PATH_VAR)
    if not os.environ.get(TOKEN_VAR) and path and not _readable(Path(path)):
        return f"{TOKEN_PATH_VAR}={path} names no readable, non-empty file"
    try:
        found = AuthenticationTokenLoader.instance().has_token(ignore_auth_mode=True)
    except AuthenticationError:
        found = False
    return None if found else f"looked in {token_source()}"


def _readable(path: Path) -> bool:
    try:
        return bool(path.read_text().strip())
    except OSError:
        return False


def _accepted(address: str, mode: str) -> bool:
    """Whether the GCS answers a request made in ``mode`` (``False``: it asked for a token)."""
    from ray._raylet import InnerGcsClient
    from ray.exceptions import AuthenticationError, RayError

    _set_mode(mode)
    try:
        InnerGcsClient.standalone(address, None, PROBE_TIMEOUT_MS)
    except AuthenticationError:
        return False
    except RayError as exc:
        raise ClusterAuthError(
            f"{address} accepts connections but does not answer as a Ray head ({exc}): "
            "check that the port is the head's `ray start --port`"
        ) from exc
    return True


def _set_mode(mode: str | None) -> None:
    """Set ``RAY_AUTH_MODE`` for this process, as Ray itself does (config and token reloaded)."""
    from ray._raylet import AuthenticationTokenLoader, Config

    if mode is None:
        os.environ.pop(AUTH_MODE_VAR, None)
    else:
        os.environ[AUTH_MODE_VAR] = mode
    Config.initialize("")
    AuthenticationTokenLoader.instance().reset_cache()
