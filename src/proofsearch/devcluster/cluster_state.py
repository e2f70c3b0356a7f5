"""Print a cluster's nodes and actors as JSON, joining it as proofsearch does.

    python -m proofsearch.devcluster.cluster_state HOST:PORT

A process of its own, so that the caller (a test suite with its own Ray) keeps its
Ray state and authentication settings.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from proofsearch.distributed.ray_setup import RayOptions, ray_session


def cluster_state(address: str) -> dict[str, Any]:
    import ray
    from ray._private import state

    with ray_session(RayOptions(address=address)):
        nodes = [
            {"node_id": n["NodeID"], "port": n["NodeManagerPort"], "alive": n["Alive"]}
            for n in ray.nodes()
        ]
        actors = [
            {
                "actor_id": a["ActorID"],
                "class": a["ActorClassName"],
                "node_id": a["Address"]["NodeID"],
                "state": a["State"],
                "job_id": a["JobID"],
            }
            for a in state.actors().values()
        ]
    return {"nodes": nodes, "actors": actors}


if __name__ == "__main__":
    print(json.dumps(cluster_state(sys.argv[1])))
