"""Where the token is looked for, and addresses refused before Ray is asked anything.

The joins themselves (token found, wrong, missing; modes that disagree) are tested
against real ``ray start`` clusters in ``test_ray_start_cluster.py``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from proofsearch.devcluster.ray_start import free_port
from proofsearch.distributed.ray_auth import (
    ClusterAuthError,
    check_reachable,
    gcs_address,
    token_source,
)


def test_token_source_follows_rays_order(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("RAY_AUTH_TOKEN", raising=False)
    monkeypatch.delenv("RAY_AUTH_TOKEN_PATH", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert token_source() == str(tmp_path / ".ray" / "auth_token")
    monkeypatch.setenv("RAY_AUTH_TOKEN_PATH", "/secrets/ray")
    assert token_source() == "/secrets/ray (named by RAY_AUTH_TOKEN_PATH)"
    monkeypatch.setenv("RAY_AUTH_TOKEN", "abc")
    assert token_source() == "the RAY_AUTH_TOKEN variable"


@pytest.mark.parametrize(
    ("address", "message"),
    [
        ("nonsense", "'nonsense' is not a Ray address (HOST:PORT)"),
        ("127.0.0.1:99999", "the port must be a number from 1 to 65535"),
    ],
)
def test_bad_addresses_are_named(address: str, message: str) -> None:
    with pytest.raises(ClusterAuthError, match=re.escape(message)):
        gcs_address(address)


def test_ray_client_addresses_are_left_to_ray() -> None:
    assert gcs_address("ray://head:10001") is None


def test_a_port_with_nothing_behind_it_says_how_to_start_the_head() -> None:
    port = free_port()
    with pytest.raises(ClusterAuthError) as caught:
        check_reachable(f"127.0.0.1:{port}")
    assert f"nothing answers at 127.0.0.1:{port}" in str(caught.value)
    assert f"ray start --head --port={port}" in str(caught.value)
