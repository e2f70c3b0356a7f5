"""One shard per traced file, written so that a killed run never leaves a half shard.

Each file of a shard is written to a temporary name and renamed into place (atomic on
POSIX); the ``.meta.json`` goes last, so its presence with the right key is what makes a
shard fresh. A run that was killed leaves at most temporary files, which the next run
removes, and shards whose meta is missing or stale, which it traces again.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from pydantic import BaseModel, ValidationError

from proofsearch.trace.schema import FORMAT_VERSION, FileRecord, TraceDir

_TMP = ".tmp-"


#: Bumped when the tracer records more or different things from the same source, so
#: that re-running ``trace`` on an existing folder traces every file again.
#: 2: included constants whose statement Coq prints on the next line; the premises of a
#: section that encloses another section. 3: the premises of a functor's body and its
#: parameters, seen only inside it (``Premise.until``).
TRACER_REVISION = 3


def shard_key(source: bytes, args: Sequence[str], coq_version: str) -> str:
    """sha256 of the source, the Coq arguments (loadpath), the Coq version and the
    tracer's revision."""
    digest = hashlib.sha256()
    parts = (source, "\0".join(args).encode(), coq_version.encode(), str(TRACER_REVISION).encode())
    for part in parts:
        digest.update(len(part).to_bytes(8, "little"))
        digest.update(part)
    return digest.hexdigest()


def _write_atomic(path: Path, lines: Iterable[str]) -> None:
    tmp = path.with_name(f"{_TMP}{os.getpid()}-{path.name}")
    with tmp.open("w", encoding="utf-8") as handle:
        for line in lines:
            handle.write(line)
        handle.flush()
        os.fsync(handle.fileno())
    tmp.replace(path)


def write_shard(
    trace: TraceDir,
    record: FileRecord,
    steps: Sequence[BaseModel],
    premises: Sequence[BaseModel],
) -> None:
    """Write steps, premises, then the meta that commits them."""
    module = record.module
    _write_atomic(trace.shard(module, "steps"), (s.model_dump_json() + "\n" for s in steps))
    _write_atomic(trace.shard(module, "premises"), (p.model_dump_json() + "\n" for p in premises))
    write_record(trace, record)


def write_record(trace: TraceDir, record: FileRecord) -> None:
    """Write (or replace) a shard's record alone, atomically."""
    _write_atomic(trace.shard(record.module, "meta"), [record.model_dump_json(indent=1) + "\n"])


def read_record(trace: TraceDir, module: str) -> FileRecord | None:
    """The shard's record, or ``None`` when it is missing or unreadable."""
    path = trace.shard(module, "meta")
    try:
        record = FileRecord.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, ValidationError):
        return None
    if record.format != FORMAT_VERSION:
        return None
    if not (trace.shard(module, "steps").exists() and trace.shard(module, "premises").exists()):
        return None
    return record


def open_trace_dir(root: Path) -> TraceDir:
    """Create ``root/files`` if needed and remove what a killed run left half-written."""
    files = root / "files"
    files.mkdir(parents=True, exist_ok=True)
    for leftover in files.glob(f"{_TMP}*"):
        leftover.unlink(missing_ok=True)
    return TraceDir(root)
