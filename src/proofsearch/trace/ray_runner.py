"""Tracing on a Ray cluster: each file a Ray task, in dependency order.

For libraries whose trace takes hours on one machine. The tasks run the same
:func:`~proofsearch.trace.runner.run_job` as the process pool, under the same
scheduler (:func:`~proofsearch.trace.runner.schedule`), so shards, resume (a file whose
shard is fresh is not a job at all) and failure records are the same. A task lost with
its node is retried by Ray; one that still fails is that file's ``failed`` record.

Every node must see the sources and the output folder at the same paths (a shared
file system; an installed library is at the same path on nodes with the same packages):
a task on a node that does not see them fails that file with that reason, rather than
tracing into a folder nobody reads.
"""

from __future__ import annotations

import socket
from pathlib import Path

from proofsearch.distributed.ray_setup import RayOptions, ray_session
from proofsearch.trace.runner import Job, OnRecord, failed_record, run_job, schedule
from proofsearch.trace.schema import FileRecord

#: Ray retries a task whose worker or node died this many times.
TASK_RETRIES = 2


def run_on_ray(
    jobs: list[Job],
    *,
    ray_options: RayOptions,
    workers: int | None = None,
    on_record: OnRecord | None = None,
) -> list[FileRecord]:
    """Run the jobs as Ray tasks (one CPU each), at most ``workers`` at once (default:
    the cluster's CPUs), on the cluster ``ray_options`` joins or a new local one."""
    import ray

    with ray_session(ray_options):
        task = ray.remote(trace_on_this_node).options(num_cpus=1, max_retries=TASK_RETRIES)
        if workers is None:
            workers = max(1, int(ray.cluster_resources().get("CPU", 1)))

        def finished(running: list[ray.ObjectRef]) -> list[ray.ObjectRef]:
            done, _ = ray.wait(running, num_returns=1)
            return list(done)

        return schedule(
            jobs,
            lambda job: task.remote(job),
            finished,
            ray.get,
            workers=workers,
            on_record=on_record,
        )


def trace_on_this_node(job: Job) -> FileRecord:
    """:func:`run_job`, once this node is seen to have the source and the output folder."""
    missing = [str(path) for path in (job.source.path, Path(job.out)) if not path.exists()]
    if missing:
        return failed_record(
            job,
            f"node {socket.gethostname()} does not see {', '.join(missing)}: tracing on a "
            "cluster needs the sources and --out on a file system every node shares (the "
            "same paths everywhere)",
        )
    return run_job(job)
