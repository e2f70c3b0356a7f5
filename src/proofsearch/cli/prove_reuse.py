"""Which earlier results a ``prove`` run keeps, and which it searches again.

A run reuses its results file (a ``--write`` after a dry run searches nothing): each
hole's result stands while its file is unchanged (or changed only by ``--write`` filling
other holes of it) and the run's settings are those of the run that found it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from proofsearch.cli.codes import EXIT_USAGE
from proofsearch.cli.errors import CommandError


def forget_stale(
    store: Any, records: list[dict[str, Any]], written: Mapping[str, str] | None = None
) -> None:
    """Earlier results are kept only for holes whose file has not changed since (but
    for ``prove --write`` filling other holes of it: ``written``, each file's sha256
    before → after), and that did not end in ``error``: the others are searched again
    (their new result is appended, and read last)."""
    from proofsearch.project.plan import same_but_written

    digests = {r["name"]: r["source_sha256"] for r in records}
    existing = store.existing.records
    for name in [n for n, r in existing.items() if n in digests]:
        record = existing[name]
        before = str(record.get("source_sha256"))
        if record.get("status") == "error" or not same_but_written(
            before, digests[name], written or {}
        ):
            del existing[name]


def forget_holes(store: Any, records: list[dict[str, Any]]) -> None:
    """``--overwrite`` with ``--lemma`` or FILES: forget these holes' earlier results (and
    their parts', ``NAME#…``), keeping every other hole's."""
    holes = {str(r["name"]).split("#", 1)[0] for r in records}
    existing = store.existing.records
    for name in [n for n in existing if n.split("#", 1)[0] in holes]:
        del existing[name]


def settings_changed(store: Any, output: Path, spec: Any, *, fresh: bool) -> str | None:
    """Record this run's settings beside the results; when they differ from the last
    run's (``--timeout 60`` after a 20 s run, another generator or ``--index``), forget
    the holes it left open so they are searched again with the new settings (its proofs
    stand: each is re-checked before it is written), in this run or, if it is stopped,
    the next with the same settings. Returns the line that says so. ``fresh``: the
    earlier results were forgotten (``--overwrite``)."""
    from proofsearch.data.run_settings import (
        differences,
        last_lines,
        last_settings,
        record_run,
        settings_of,
        settings_start,
    )

    settings = settings_of(
        "coq", spec.generator, spec.generator_options, spec.search, spec.prover_options
    )
    previous = None if fresh else last_settings(output)
    changed = differences(previous, settings) if previous is not None else []
    count, lines = (0, {}) if fresh else last_lines(output)
    try:
        record_run(output, settings, resumed=not fresh, results_from=count if changed else None)
    except OSError as exc:  # the results file's folder is writable, so this is rare
        raise CommandError(
            str(output), f"cannot record the run's settings beside it: {exc}", code=EXIT_USAGE
        ) from None
    start = settings_start(output)
    existing = store.existing.records
    earlier = [
        name
        for name, record in existing.items()
        if record.get("status") != "proved" and lines.get(name, start) < start
    ]
    for name in earlier:
        del existing[name]
    if not (changed and earlier):
        return None
    return (
        f"settings differ from the last run's ({'; '.join(changed)}): the {len(earlier)} "
        f"hole(s) it left open are searched again; its {len(existing)} proof(s) are kept "
        "(--overwrite searches every hole again)"
    )
