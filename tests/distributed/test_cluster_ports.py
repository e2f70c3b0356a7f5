"""The ports a ``ray start`` cluster hands out are distinct, even when the kernel repeats one.

A port handed out is not listened on until ``ray start`` runs, so the kernel may offer it
again; Ray refuses to start when two of its components share a port (CI saw the GCS port
offered again as the dashboard agent's).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from proofsearch.devcluster import RayStartCluster, ray_start


def test_a_port_offered_again_is_not_handed_out_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    offered: Iterator[int] = iter([40043, 40043, 53447, 40043, 53447, 41000])
    monkeypatch.setattr(ray_start, "free_port", lambda: next(offered))
    with RayStartCluster(token=False) as cluster:
        handed_out = [cluster.port, cluster._new_port(), cluster._new_port()]
    assert handed_out == [40043, 53447, 41000]
