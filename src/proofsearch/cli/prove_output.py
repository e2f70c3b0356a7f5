"""The end of ``proofsearch prove``: the diff, the table per file, the write, the record
that ``proofsearch report`` reads (``RESULTS.prove.json`` beside the results file).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from proofsearch.cli import EXIT_FAILURES, EXIT_OK
from proofsearch.cli.console import print_error, print_notice

if TYPE_CHECKING:
    from proofsearch.project.holes import Hole
    from proofsearch.project.outcome import Outcome
    from proofsearch.project.plan import HolePlan
    from proofsearch.trace.sources import Project


def write_back(
    args: argparse.Namespace,
    project: Project,
    plan: HolePlan,
    results: dict[str, dict[str, Any]],
    output: Path,
    clock: dict[str, float],
    start: float,
    console: Console,
    searched: Sequence[str] = (),
) -> int:
    """Decide, show and (``--write``) write the filled proofs. ``searched``: the holes
    this run searched (not kept from an earlier one): ``--write`` prints what it writes
    for those, which no earlier dry run showed (audit 49)."""
    from proofsearch.project.outcome import decide, false_lemmas
    from proofsearch.project.patch import fill_text, unified_diff
    from proofsearch.project.writeback import ProjectBroken

    step = time.perf_counter()
    try:
        outcome = decide(
            project, plan, results, strict=args.strict, coqc=args.coqc,
            jobs=args.trace_jobs or os.cpu_count() or 1,
        )  # fmt: skip
    except ProjectBroken as exc:
        print_error(console, str(exc))
        return EXIT_FAILURES
    clock["rebuild"] = outcome.rebuild_seconds
    by_module: dict[str, dict[Any, tuple[str, ...]]] = {}
    for hole, proof in outcome.filled.items():
        by_module.setdefault(hole.source.module, {})[hole] = proof
    diff: list[str] = []
    new_texts: dict[str, str] = {}
    files = {source.module: source for source in project.sources}
    for module in plan.texts:
        if module in by_module:
            new_texts[module] = fill_text(plan.texts[module], by_module[module])
            diff.append(unified_diff(files[module].file, plan.texts[module], new_texts[module]))
    patch = "".join(diff)
    if args.patch is not None:
        args.patch.write_text(patch, encoding="utf-8")
    elif not args.write and patch:
        print(patch, end="")
    refused: list[str] = list(outcome.changed_files)
    #: Files the system would not let ``--write`` replace, and why: the others are written.
    unwritable: dict[str, str] = {}
    if args.write:
        from proofsearch.project.plan import digest, record_written

        written: dict[str, str] = {}
        paths = {source.module: source.path for source in project.sources}
        ours: dict[str, str] = {}  # module → sha256 of what this run wrote there
        for module, text in new_texts.items():
            source = files[module]
            changed = plan.changed_load(module, paths, ours)  # during the rebuild: again
            if changed is not None:
                refused.append(files[changed].file)
                why = f"{files[changed].file}, which {source.file} loads, changed since it was read"
                for hole in by_module[module]:
                    outcome.left[hole] = f"{why}: run prove again"
                    del outcome.filled[hole]
                continue
            why = _write_or_say_why(source, plan.digests[module], text, refused, unwritable)
            if why:
                for hole in by_module[module]:
                    outcome.left[hole] = why
                    del outcome.filled[hole]
                continue
            ours[module] = digest(source.path.read_bytes())
            if all(hole.ender != "Defined." for hole in by_module[module]):
                # Opaque proofs change nothing the file's other holes can use; a value
                # that now computes does, so those holes are searched again.
                written[plan.digests[module]] = ours[module]
        record_written(output, written)
        if args.patch is None and not args.quiet:
            print(_new_proofs_diff(plan, outcome.filled, files, searched), end="")
    clock["write-back"] = time.perf_counter() - step - outcome.rebuild_seconds
    wall = time.perf_counter() - start
    _table(
        plan,
        outcome,
        results,
        ("written" if outcome.filled else "nothing to write") if args.write else "dry run",
    )
    for hole, reason in sorted(
        outcome.left.items(), key=lambda item: (item[0].source.file, item[0].line)
    ):
        print(f"left Admitted: {hole.source.file}:{hole.line} {hole.qualid}: {reason}")
    for hole in sorted(outcome.filled, key=lambda hole: (hole.source.file, hole.line)):
        if tactics_replaced(hole, results):
            print(
                f"your tactics replaced: {hole.source.file}:{hole.line} {hole.qualid}: they "
                "could not be continued where they stop (a goal outside the focus or "
                "shelved, or a part without a proof), so the proof found from the statement "
                f"replaces them{'' if args.write else ' with --write'}"
            )
    for hole in sorted(outcome.filled, key=lambda hole: (hole.source.file, hole.line)):
        if hole.is_obligation and (results.get(hole.name) or {}).get("proposition") is False:
            print(
                f"obligation filled with a value: {hole.source.file}:{hole.line} "
                f"{hole.qualid}: its type is no proposition ({{n | n > k}}, a sumbool), and "
                "the proof found is ended Qed., so the program does not compute through "
                "it: check the value, and end it Defined. if the program must compute"
            )
        elif value_filled(hole, results):
            what = "definition" if hole.keyword == "Definition" else "instance"
            print(
                f"{what} filled: {hole.source.file}:{hole.line} {hole.qualid}: its value "
                "is the proof found (ended Defined., so it computes); any value its type "
                "allows was accepted: check it is the one you mean"
            )
    print_not_searched(plan)
    false = false_lemmas(plan, results)
    for hole, lemmas in outcome.resting.items():
        named = [f"{name} (false as stated)" if name in false else name for name in lemmas]
        print(
            f"rests on Admitted: {hole.source.file}:{hole.line} {hole.qualid} uses "
            f"{', '.join(named)} (Print Assumptions); --strict leaves it Admitted"
        )
    for file in sorted(set(refused)):
        print_error(
            console,
            f"{file} changed since it was read: neither it nor the files that load it were "
            "written; run prove again",
        )
    for file, why in sorted(unwritable.items()):
        print_error(
            console,
            f"{file}: cannot be written ({why}): not written; its proofs are in "
            "the diff of a run without --write",
        )
    around = sum(clock[k] for k in ("holes", "header", "presentation", "rebuild", "write-back"))
    print(
        f"time: {wall:.1f} s wall; holes {clock['holes']:.2f} s, trace {clock['trace']:.1f} s, "
        f"search {clock['search']:.1f} s (headers {clock['header']:.1f} s), presentation "
        f"{clock['presentation']:.1f} s, rebuild "
        f"{clock['rebuild']:.1f} s, {'write-back' if args.write else 'final checks'} "
        f"{clock['write-back']:.1f} s; around the "
        f"search {around:.1f} s ({100 * around / wall if wall else 0:.0f} % of wall)"
    )
    print(f"results: {output}; {_run_folder_line(project)}")
    if not args.write and outcome.filled:
        print_notice(
            console,
            "dry run: no proof written (only what coqc builds beside each file: .vo, .vos, "
            ".vok, .glob and .aux, where make would write them); "
            "--write writes these proofs (reusing this run's results)",
        )
    project_files = {source.file for source in project.sources}
    _save(output, plan, outcome, results, args.write, clock, wall, project_files)
    return EXIT_FAILURES if refused or unwritable else EXIT_OK


def _run_folder_line(project: Project) -> str:
    """Where the run's theorems and trace are (``R`` of docs/prove.md's re-check by
    hand, which no output named: audit 45)."""
    from proofsearch.project.config import project_key
    from proofsearch.project.learn import cache_root

    run = cache_root() / "prove" / project_key(project)
    return f"theorems and trace in {run} (docs/prove.md: re-check or export them by hand)"


def _write_or_say_why(
    source: Any, expected: str, text: str, refused: list[str], unwritable: dict[str, str]
) -> str:
    """Write ``text`` to the source file, or say why it was not (its holes are left
    with that reason): the file changed since it was read (``refused``), it is read-only
    (yours to keep as it is: vendored, generated; the rename would have replaced it),
    or the system will not let it be replaced (``unwritable``, with the reason)."""
    from proofsearch.project.patch import write_atomic
    from proofsearch.project.plan import file_changed

    if file_changed(source.path, expected):
        refused.append(source.file)
        return f"{source.file} changed since it was read: run prove again"
    if not source.path.stat().st_mode & 0o222:
        return (
            f"{source.file} is read-only: not written (make it writable, or take the proof "
            "from the diff of a run without --write)"
        )
    try:
        write_atomic(source.path, text)
    except OSError as exc:  # a read-only folder or mount, an immutable file
        unwritable[source.file] = exc.strerror or str(exc)
        return f"{source.file} cannot be written: {unwritable[source.file]}"
    return ""


def value_filled(hole: Hole, results: dict[str, dict[str, Any]]) -> bool:
    """Whether a filled hole's value is data the user should look at: a ``Definition``,
    or an ``Instance`` whose type is no proposition (a class with data fields, ``Pointed
    nat``, got an arbitrary point without a word); an instance of ``Proper`` is a proof."""
    if hole.keyword == "Definition":
        return True
    record = results.get(hole.name) or {}
    return hole.keyword == "Instance" and record.get("proposition") is False


def tactics_replaced(hole: Hole, results: dict[str, dict[str, Any]]) -> bool:
    """Whether the hole's own tactics could not be continued: it was proved from its
    statement, and the written proof drops them."""
    status = results.get(hole.name, {}).get("status")
    return bool(hole.partial or hole.admits) and status == "proved"


def print_not_searched(plan: HolePlan) -> None:
    """One line per ``Admitted`` proof of the selected files that is not a hole."""
    for skipped in plan.not_searched:
        name = f" {skipped.ident}" if skipped.ident else ""
        print(f"not searched: {skipped.source.file}:{skipped.line}{name}: {skipped.reason}")


def _table(plan: HolePlan, outcome: Outcome, results: dict[str, dict[str, Any]], what: str) -> None:
    """The table of holes per file, titled ``prove: WHAT`` (``written``, ``dry run``, or
    ``nothing to write``: a --write run that filled nothing said "written")."""
    table = Table(
        title=f"prove: {what}",
        caption="search (s): the holes' searches, an earlier run's where its results were reused",
    )
    # Of the filled, those that rest on another Admitted lemma (a false exercise proves
    # anything): a column of their own where there are some (audit 54).
    resting = [h for h in outcome.filled if h in outcome.resting]
    columns = ["file", "holes", "filled", "left", "search (s)"]
    if resting:
        columns.insert(3, "of them on Admitted")
    for column in columns:
        table.add_column(column, justify="left" if column == "file" else "right")
    files: dict[str, list[Any]] = {}
    for hole in plan.selected:
        files.setdefault(hole.source.file, []).append(hole)
    for file, holes in files.items():
        filled = sum(1 for h in holes if h in outcome.filled)
        names = {h.name for h in holes}
        seconds = sum(
            float(r.get("total_time") or 0.0)
            for name, r in results.items()
            if name.split("#", 1)[0] in names  # a part of a hole: NAME#admitK, NAME#restK
        )
        row = [file, str(len(holes)), str(filled), str(len(holes) - filled), f"{seconds:.1f}"]
        if resting:
            row.insert(3, str(sum(1 for h in holes if h in resting)))
        table.add_row(*row)
    Console(soft_wrap=True).print(table)


def _save(
    output: Path,
    plan: HolePlan,
    outcome: Outcome,
    results: dict[str, dict[str, Any]],
    written: bool,
    clock: dict[str, float],
    wall: float,
    project_files: set[str],
) -> None:
    """``RESULTS.prove.json``: per file, the proofs found and the holes left (an earlier
    run's entries for the project's files this run did not select kept)."""
    files: dict[str, dict[str, Any]] = {}
    for hole in plan.selected:
        entry = files.setdefault(hole.source.file, {"filled": [], "left": []})
        if hole in outcome.filled:
            item: dict[str, Any] = {
                "name": hole.qualid,
                "line": hole.line,
                "proof": list(outcome.filled[hole]),
            }
            if hole in outcome.resting:
                item["rests_on_admitted"] = outcome.resting[hole]
            if tactics_replaced(hole, results):
                item["your_tactics_replaced"] = True
            if value_filled(hole, results):
                item["definition"] = True
            entry["filled"].append(item)
        else:
            entry["left"].append(
                {"name": hole.qualid, "line": hole.line, "reason": outcome.left.get(hole, "")}
            )
    for skipped in plan.not_searched:
        entry = files.setdefault(skipped.source.file, {"filled": [], "left": []})
        entry.setdefault("not_searched", []).append(
            {"name": skipped.ident, "line": skipped.line, "reason": skipped.reason}
        )
    for entry in files.values():
        entry["written"] = written
    path = output.with_name(output.name + ".prove.json")
    earlier = _earlier_summary(path)
    _keep_written_before(files, earlier)
    record = {
        "written": written,
        "files": {**_earlier_files(earlier, plan, project_files), **files},
        "seconds": {**clock, "wall": wall},
    }
    path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


def _earlier_summary(path: Path) -> dict[str, Any]:
    """The files of the summary an earlier run wrote ({} when there is none)."""
    try:
        earlier = json.loads(path.read_text(encoding="utf-8")).get("files")
    except (OSError, ValueError, AttributeError):
        return {}
    return earlier if isinstance(earlier, dict) else {}


def _keep_written_before(files: dict[str, dict[str, Any]], earlier: dict[str, Any]) -> None:
    """The proofs an earlier ``--write`` put into a file this run searched again: they
    are no holes now, so this run's entry alone lost them (verification 56: a course's
    file listed only the hole left). Added to its ``filled``, marked ``earlier``."""
    for file, entry in files.items():
        before = earlier.get(file)
        if not isinstance(before, dict) or not before.get("written"):
            continue
        names = {item["name"] for key in ("filled", "left") for item in entry[key]}
        entry["filled"] += [
            {**item, "earlier": True}
            for item in before.get("filled", [])
            if isinstance(item, dict) and item.get("name") not in names
        ]


def _earlier_files(
    earlier: dict[str, Any], plan: HolePlan, project_files: set[str]
) -> dict[str, Any]:
    """The files an earlier run's summary has and this run's selection has not (``prove
    course/Logic.v`` after a run over the whole course, or files whose holes a
    ``--write`` filled): kept, marked ``earlier``, so that the summary (and ``proofsearch
    report``) still says what was filled there (audit 54: a teacher grading saw only the
    last run's file). A file no longer in the project is dropped."""
    selected = {hole.source.file for hole in plan.selected}
    selected |= {skipped.source.file for skipped in plan.not_searched}
    return {
        file: {**entry, "earlier": True}
        for file, entry in earlier.items()
        if file not in selected and file in project_files and isinstance(entry, dict)
    }


def loose_folder_note(folder: Path, project: Project) -> str | None:
    """What a folder with no project file was read as (``None``: it has one, or it lies
    inside a project, which was read instead)."""
    from proofsearch.project.config import is_root

    if not folder.is_dir() or is_root(folder) or project.root != folder.resolve():
        return None
    return (
        f"{folder}: no _CoqProject: its {len(project.sources)} .v file(s) (subfolders too) "
        f'as one project, the folder bound to the empty prefix (-Q {folder} ""); add a '
        "_CoqProject for other -R/-Q lines"
    )


def second_project_file_note(project: Project) -> str | None:
    """A line when the project's folder has both a ``_CoqProject`` and a ``_RocqProject``
    that differ: the first is read, and a stale one hid 4 of 5 files without a word
    (audit 45)."""
    from proofsearch.trace.sources import PROJECT_FILES

    found = [project.root / name for name in PROJECT_FILES if (project.root / name).is_file()]
    if len(found) < 2 or found[0].read_bytes() == found[1].read_bytes():
        return None
    return (
        f"{found[0]} read; the {found[1].name} beside it differs and is not read (remove "
        "the stale one, or make them the same)"
    )


def _new_proofs_diff(
    plan: HolePlan, filled: Mapping[Any, Sequence[str]], files: dict[str, Any],
    searched: Sequence[str],
) -> str:  # fmt: skip
    """The diff of the proofs ``--write`` wrote that this run found (a hole ``searched``
    now, not one kept from an earlier run, whose diff the dry run printed)."""
    from proofsearch.project.patch import fill_text, unified_diff

    now = {name.split("#", 1)[0] for name in searched}
    by_module: dict[str, dict[Any, Sequence[str]]] = {}
    for hole, proof in filled.items():
        if hole.name in now:
            by_module.setdefault(hole.source.module, {})[hole] = proof
    out = []
    for module, fresh in by_module.items():
        if fresh:
            new = fill_text(plan.texts[module], fresh)
            out.append(unified_diff(files[module].file, plan.texts[module], new))
    return "".join(out)


def untraced_lines(libraries: list[Path], coqlib: Path | None = None) -> list[str]:
    """One line per library trace folder with files that failed to trace; ``coqlib``
    (``coqc -where``) tells an installed library from the project's own bindings."""
    from proofsearch.project.libraries import untraced_files

    by_folder: dict[Path, list[Any]] = {}
    for out, record in untraced_files(libraries):
        by_folder.setdefault(out, []).append(record)
    lines = []
    for out, records in by_folder.items():
        first = records[0]
        error = first.error
        message = " ".join((error.message if error else "").split())[:300].rstrip(".")
        more = f" ({len(records) - 1} more file(s) of it too)" if len(records) > 1 else ""
        lines.append(
            f"library trace: {first.module} ({first.file}:{error.line if error else 1}) could "
            f"not be traced: {message}{more}; its lemmas are not premises, the search goes on "
            f"without them ({_untraced_advice(out, coqlib)})"
        )
    return lines


def _untraced_advice(out: Path, coqlib: Path | None) -> str:
    """Why a library's file may not trace, and what to do. An installed library's source
    need not compile outside the library's own build (Hierarchy Builder's
    ``structures.v`` accumulates its ``.elpi`` files by a relative path): nothing in the
    user's project is wrong, and its compiled lemmas stay usable (audit 49)."""
    from proofsearch.trace.schema import TraceDir

    project = TraceDir(out).project()
    root = Path(project.root) if project is not None else None
    if root is not None and (
        "user-contrib" in root.parts or (coqlib is not None and root.is_relative_to(coqlib))
    ):
        return (
            "an installed library's source need not compile outside its own build; your "
            "proofs can still use its lemmas, and nothing in your project needs a change"
        )
    return (
        "does the library compile with the project's -R/-Q/-I lines and its typing flags, "
        "such as -noinit or -type-in-type? the library is traced with those the project "
        "gives with -arg, and no others"
    )
