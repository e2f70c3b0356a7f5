"""Which earlier results a ``prove`` run keeps, and which it searches again.

A run reuses its results file (a ``--write`` after a dry run searches nothing): each
hole's result stands while its file is unchanged (or changed only by ``--write`` filling
other holes of it) and the run's settings are those of the run that found it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from proofsearch.cli.codes import EXIT_USAGE
from proofsearch.cli.errors import CommandError


def forget_stale(
    store: Any,
    records: list[dict[str, Any]],
    written: Mapping[str, str] | None = None,
    edited: list[str] | None = None,
    unproved: list[str] | None = None,
) -> list[str]:
    """Earlier results are kept only for holes whose file has not changed since (but
    for ``prove --write`` filling other holes of it: ``written``, each file's sha256
    before → after), and that did not end in ``error``: the others are searched again
    (their new result is appended, and read last). A hole left open is searched again
    too when a project file it loads changed otherwise (an earlier hole filled with a
    value that now computes, ``Defined.``, or the user's edit): what it can use did.
    Returns the proved holes whose loaded files changed so: their proofs may no longer
    hold (a lemma they use was restated), and are re-checked (:func:`recheck_proofs`).
    ``edited`` gets the open holes searched again for an edit (theirs or a loaded file's),
    ``unproved`` the proved ones whose own file changed (a statement edited after a dry
    run: its proof is not written), so that the run can say why."""
    from proofsearch.project.plan import same_but_written

    now = {r["name"]: r for r in records}
    existing = store.existing.records
    suspect: list[str] = []
    for name in [n for n, r in existing.items() if n in now]:
        record = existing[name]
        stale_file = not same_but_written(
            str(record.get("source_sha256")), now[name]["source_sha256"], written or {}
        )
        stale_loads = _loads_changed(
            record.get("deps_sha256"), now[name].get("deps_sha256") or {}, written or {}
        )
        proved = record.get("status") == "proved"
        if record.get("status") == "error" or stale_file or (stale_loads and not proved):
            if edited is not None and record.get("status") != "error" and not proved:
                edited.append(name)
            if unproved is not None and proved:
                unproved.append(name)
            del existing[name]
        elif stale_loads:
            suspect.append(name)
    return suspect


def recheck_proofs(
    store: Any,
    names: list[str],
    records: list[dict[str, Any]],
    theorems: Mapping[str, Any],
    prover_options: Mapping[str, Any],
) -> list[str]:
    """Re-check from scratch, at the hole as it is now, each earlier proof of ``names``;
    forget those that no longer check (they are searched again) and return them. One
    that still checks is recorded again with the files' digests of now, so that the
    next run does not check it again. Until 2026-12-07 such a proof was kept
    unchecked, the rebuild refused it ("breaks …: Cannot find witness"), and the hole
    was never searched again while its own file stood still."""
    from proofsearch.env.registry import make_prover

    now = {str(r["name"]): r for r in records}
    existing = store.existing.records
    failed: list[str] = []
    with make_prover("coq", prover_options) as prover:
        for name in names:
            theorem = theorems.get(name)
            proof = existing[name].get("proof")
            if theorem is None or not isinstance(proof, list):
                continue
            if prover.check(theorem, proof).ok:
                fresh = {key: now[name].get(key) for key in ("source_sha256", "deps_sha256")}
                existing[name] = {**existing[name], **fresh}
                store.append(existing[name])
            else:
                failed.append(name)
                del existing[name]
    return failed


def _loads_changed(before: Any, now: Mapping[str, str], written: Mapping[str, str]) -> bool:
    """Whether a module a hole loads changed other than by ``--write``'s opaque proofs
    (``before``: the hole's earlier ``deps_sha256``; absent in older results)."""
    from proofsearch.project.plan import same_but_written

    if not isinstance(before, dict):
        return False
    return any(
        module in now and not same_but_written(str(sha), now[module], written)
        for module, sha in before.items()
    )


def record_theorems(path: Path, records: list[dict[str, Any]], *, fresh: bool) -> None:
    """Write the run's theorem lines beside its results, keeping the lines of holes an
    earlier run searched (a ``--lemma`` run, or one after ``--write`` filled some): the
    results file keeps their results, so that ``proofsearch check RESULTS THEOREMS``
    finds every proof's theorem. ``fresh`` (``--overwrite``): this run's lines only."""
    kept: dict[str, str] = {}
    if not fresh and path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                name = json.loads(line).get("name")
            except (ValueError, AttributeError):
                continue
            if isinstance(name, str):
                kept[name] = line
    for record in records:
        kept[str(record["name"])] = json.dumps(record)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in kept.values()), encoding="utf-8")


def forget_holes(store: Any, records: list[dict[str, Any]]) -> None:
    """``--overwrite`` with ``--lemma`` or FILES: forget these holes' earlier results (and
    their parts', ``NAME#…``), keeping every other hole's."""
    holes = {str(r["name"]).split("#", 1)[0] for r in records}
    existing = store.existing.records
    for name in [n for n in existing if n.split("#", 1)[0] in holes]:
        del existing[name]


#: Budgets a failure found under a larger value of stands for: a hole left open at
#: ``--timeout 30`` was searched again at ``--timeout 10`` (audit 55).
BUDGETS = ("search.timeout", "search.max_expansions", "prover_options.check_timeout")


def only_budget_cuts(before: Mapping[str, Any], now: Mapping[str, Any]) -> bool:
    """Whether ``now`` differs from ``before`` only by smaller budgets (a limit given
    where there was none counts as smaller)."""
    import copy

    from proofsearch.data.run_settings import differences

    adjusted: dict[str, Any] = copy.deepcopy(dict(before))
    for dotted in BUDGETS:
        group, key = dotted.split(".")
        old = (before.get(group) or {}).get(key)
        new = (now.get(group) or {}).get(key)
        if new != old and new is not None and (old is None or _less(new, old)):
            adjusted.setdefault(group, {})[key] = new
    return not differences(adjusted, now)


def _less(new: Any, old: Any) -> bool:
    return isinstance(new, int | float) and isinstance(old, int | float) and new < old


def settings_changed(
    store: Any, output: Path, spec: Any, *, fresh: bool, selected: set[str]
) -> str | None:
    """Record this run's settings beside the results, and forget each hole's failure
    found under other settings (``--timeout 60`` after a 20 s run, another generator or
    ``--index``): it is searched again with these (proofs stand: each is re-checked
    before it is written). A failure found under these very settings is kept, even when
    runs with others came between. Returns the line that says so for the holes this
    run searches (``selected``). ``fresh``: the earlier results were forgotten
    (``--overwrite``)."""
    from proofsearch.data.run_settings import (
        differences,
        last_lines,
        record_run,
        run_starts,
        settings_at,
        settings_of,
    )

    settings = settings_of(
        "coq", spec.generator, spec.generator_options, spec.search, spec.prover_options
    )
    starts = [] if fresh else run_starts(output)
    count, lines = (0, {}) if fresh else last_lines(output)
    try:
        record_run(output, settings, resumed=count > 0, results_from=count)
    except OSError as exc:  # the results file's folder is writable, so this is rare
        raise CommandError(
            str(output), f"cannot record the run's settings beside it: {exc}", code=EXIT_USAGE
        ) from None
    existing = store.existing.records
    changed: list[str] = []
    stale = []
    for name, record in existing.items():
        if record.get("status") == "proved":
            continue
        before = settings_at(starts, lines.get(name, 0))
        found = differences(before, settings) if before is not None else []
        if found and before is not None and only_budget_cuts(before, settings):
            continue  # 10 s cannot find what 30 s did not (audit 55): the failure stands
        if found:
            stale.append(name)
            changed += [d for d in found if d not in changed]
    for name in stale:
        del existing[name]
    ours = [name for name in stale if name.split("#", 1)[0] in selected]
    if not ours:
        return None
    if any(d.startswith("search.timeout ") for d in changed):  # follows --timeout
        changed = [d for d in changed if not d.startswith("prover_options.check_timeout")]
    return (
        f"settings differ from those of the run(s) that left {len(ours)} of these hole(s) "
        f"open ({'; '.join(changed)}): they are searched again; proofs found before are "
        "kept (--overwrite searches every hole again)"
    )
