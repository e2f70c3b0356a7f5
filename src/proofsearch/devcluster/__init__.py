"""A multi-node Ray cluster started with ``ray start`` on this machine, for tests and benchmarks.

Users run ``ray start --head`` on one machine and ``ray start --address`` on the others;
:class:`RayStartCluster` runs exactly those commands, with one folder, one set of ports
and one ``HOME`` (hence one ``~/.ray/auth_token``) per cluster, so that several such
clusters, and other Ray clusters on the machine, do not see each other.
"""

from proofsearch.devcluster.ray_start import RayStartCluster, StartedNode

__all__ = ["RayStartCluster", "StartedNode"]
