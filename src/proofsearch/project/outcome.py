"""What a prove run ends with: per hole, the proof written or why it was not.

:func:`decide` takes the search's results and keeps the checked proofs, refuses those
of files changed since they were read, verifies the rest with a scratch rebuild
(:mod:`.writeback`), and marks (``--strict``: refuses) proofs resting on a lemma that
stays ``Admitted``. A refusal under ``--strict`` turns that lemma back into an
``Admitted`` one, so the rule is applied until nothing changes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from proofsearch.env.coq.data_probe import DATA_REASON
from proofsearch.project.admits import admit_block
from proofsearch.project.holes import Hole
from proofsearch.project.plan import HolePlan, file_changed
from proofsearch.project.rebuild import ScratchBuild
from proofsearch.project.writeback import Fills, full_name, resting_on_admitted, verify_fills
from proofsearch.trace.sources import Project


@dataclass
class Outcome:
    """Filled holes (with their proof), holes left (with the reason), and marks."""

    filled: Fills = field(default_factory=dict)
    left: dict[Hole, str] = field(default_factory=dict)
    #: Filled holes whose proof rests on a lemma still ``Admitted``: those lemmas.
    resting: dict[Hole, list[str]] = field(default_factory=dict)
    changed_files: list[str] = field(default_factory=list)
    rebuild_seconds: float = 0.0


#: Said of a mutual lemma left open (an audit: nothing said why such a hole is harder).
MUTUAL_NOTE = (
    "; a mutual lemma (Lemma … with …): its statements are one proof, and a goal may use"
    " the others' names only on a smaller argument, which Qed checks"
)


def _final_axioms(
    scratch: ScratchBuild, accepted: Iterable[Hole], axioms: Mapping[Hole, list[str]]
) -> dict[Hole, list[str]]:
    """What each filled proof rests on as the filled project builds (the user's kept
    tactics included: a begun proof's ``apply z`` rests on ``z`` whatever its parts'
    searches saw), else the search's re-check's. Not for a lemma no second file can
    name (inside a functor or a Hierarchy-Builder scope)."""
    named = {
        full_name(hole): hole
        for hole in accepted
        if not hole.functor_parameters and not hole.check_in_place
    }
    printed = scratch.assumptions({name: hole.source.module for name, hole in named.items()})
    final = {hole: list(axioms.get(hole, ())) for hole in accepted}
    for name, hole in named.items():
        if printed is not None and name in printed:
            final[hole] = list(printed[name])
    return final


def false_lemmas(plan: HolePlan, results: Mapping[str, dict[str, Any]]) -> set[str]:
    """The names a proof resting on a hole shown false this run may print for it
    (``bad``, ``Induction.bad``, ``LF.Induction.bad``): a proof through a false exercise
    proves anything (audit 54's `two_is_one : 1 + 1 = 1` by `apply bad`)."""
    names: set[str] = set()
    for hole in plan.all_holes:
        if (results.get(hole.name) or {}).get("refuted"):
            parts = f"{hole.source.module}.{hole.qualid}".split(".")
            qualid_parts = len(hole.qualid.split("."))
            names |= {".".join(parts[i:]) for i in range(len(parts) - qualid_parts + 1)}
    return names


def why_left(hole: Hole, record: dict[str, Any] | None, unwritten: Iterable[str] = ()) -> str:
    """Why a hole searched whole stays ``Admitted``, as the user reads it. ``unwritten``:
    the values still to write (a data ``Definition`` or a ``Fixpoint`` left ``Admitted``):
    a statement about one is seldom provable (a textbook's ``Example test_nandb1 :
    nandb true false = true`` before ``nandb`` is written), which is said."""
    why = _why_not(record) + (MUTUAL_NOTE if hole.is_mutual else "")
    words = set(re.findall(r"[\w']+", hole.statement.split(":", 1)[-1]))
    named = sorted(name for name in unwritten if name in words)
    if named and record is not None and record.get("status") != "error":
        why += (
            f"; it is about {', '.join(named)}, still Admitted: a value to write, which no "
            "proof can see into"
        )
    return why


def unwritten_values(plan: HolePlan, results: Mapping[str, dict[str, Any]]) -> set[str]:
    """The names of the values left to write: data holes (refused as data) and the
    ``Fixpoint``s and ``Definition``s by tactics that are no holes."""
    names = {
        hole.ident
        for hole in plan.all_holes
        if (results.get(hole.name) or {}).get("error") == DATA_REASON
    }
    names |= {
        s.ident for s in plan.skipped if s.ident and s.reason.startswith(("a Fixpoint", "its type"))
    }
    return names


def _why_not(record: dict[str, Any] | None) -> str:
    if record is None:
        return "not searched"
    status = record["status"]
    if status == "error":
        if record.get("error") == DATA_REASON:  # not a failure: a rule, said as it is
            return DATA_REASON
        return f"error: {' '.join(str(record.get('error')).split())[:200]}"
    if record.get("refuted"):  # its negation proved (:mod:`.refute`)
        return str(record["refuted"])
    reasons = {"failed": "no proof: search tree exhausted", "open": "no proof within the budget"}
    return reasons.get(str(status), str(status)) + _timeouts(record)


#: General automation that often runs into the per-tactic limit on goals it cannot
#: prove: its stopping is no sign that more time would help (an audit followed the
#: advice for `firstorder` at 10 s, and nothing changed).
ROUTINE_TIMEOUTS = frozenset(
    {"auto", "eauto", "trivial", "firstorder", "intuition", "tauto", "congruence",
     "discriminate", "sauto", "hauto", "qauto", "lia", "nia", "lra", "nra", "psatz",
     "ring", "field", "easy", "now", "done", "typeclasses"}
)  # fmt: skip


#: A step that may never end whatever the limit: a rewrite repeated as long as it
#: applies (``rewrite ?IHn`` with ``IHn : n = S n``), ``repeat``: no advice for those.
_MAY_LOOP = re.compile(r"\brewrite\s+(?:->\s*|<-\s*)?[?!]|\brepeat\b")


def _timeouts(record: dict[str, Any]) -> str:
    """The tactics stopped at the per-tactic limit, said: a slow tactic that proves the
    goal (``interval with (i_prec 2000)``, 3 s) was killed at 2 s without a word. A
    larger limit is suggested only for a tactic other than general automation."""
    stopped = record.get("timeouts")
    if not isinstance(stopped, dict) or not stopped:
        return ""
    special = [
        t for t in stopped
        if (t.split() or [""])[0] not in ROUTINE_TIMEOUTS and not _MAY_LOOP.search(t)
    ]  # fmt: skip
    slowest = max(special or stopped, key=lambda tactic: stopped[tactic])
    if slowest.endswith(" using"):  # a kind, its hint lemmas left out when counting
        slowest += " …"
    # One or two slow tactics of their own (`interval`, 3 s) may want a larger per-tactic
    # limit; many different ones stopped at it (five variants of `apply is_derive_scal`,
    # audit 55) spent the budget, and a larger --timeout let automation try instead.
    advice = (
        ": a larger --tactic-timeout may prove it"
        if 1 <= len(special) <= 2
        else ": they spent much of the budget: a larger --timeout may prove it"
        if special
        else ""
    )
    return (
        f" ({len(stopped)} tactic(s) stopped at the per-tactic limit, such as `{slowest}`{advice})"
    )


def _proved(record: dict[str, Any]) -> bool:
    return bool(record["status"] == "proved" and record.get("checked") and record["proof"])


def _part_label(name: str) -> str:
    """How a part is named to the user: ``admit 2``, ``goal 1 left at Admitted``."""
    part = name.rsplit("#", 1)[-1]
    if part.startswith("rest"):
        return f"goal {part[len('rest') :]} left at Admitted"
    return f"admit {part[len('admit') :]}"


def _part_results(hole: Hole, results: Mapping[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The results of the hole's parts (its ``admit.`` goals and those left at
    ``Admitted``), in order; ``[]``: it was searched whole."""
    first = results.get(f"{hole.name}#admit1") or results.get(f"{hole.name}#rest1")
    if first is None:
        return []
    names = [str(name) for name in first.get("parts") or [first["name"]]]
    return [results[name] for name in names] if all(n in results for n in names) else []


def unfinished(holes: Sequence[Hole], results: Mapping[str, dict[str, Any]]) -> list[Hole]:
    """The holes searched part by part with a part left unproved: each is searched
    again from its statement (the user's tactics may have led nowhere)."""
    return [
        hole
        for hole in holes
        if (parts := _part_results(hole, results))
        and not all(_proved(r) for r in parts)
        and hole.name not in results
    ]


def part_errors(holes: Sequence[Hole], results: Mapping[str, dict[str, Any]]) -> list[str]:
    """Why parts of these holes could not even be searched (``NAME#admit1: statement
    rejected: …``): not a search that found nothing, so the user is told."""
    return [
        f"{part['name']}: {' '.join(str(part.get('error') or 'error').split())}"
        for hole in holes
        for part in _part_results(hole, results)
        if part.get("status") == "error"
    ]


def decide(
    project: Project,
    plan: HolePlan,
    results: Mapping[str, dict[str, Any]],
    *,
    strict: bool,
    coqc: str = "coqc",
    jobs: int = 1,
) -> Outcome:
    outcome = Outcome()
    unwritten = unwritten_values(plan, results)
    found: Fills = {}
    axioms: dict[Hole, list[str]] = {}
    for hole in plan.selected:
        if hole in plan.complete:  # the user's tactics, ended Qed: the rebuild checks them
            found[hole] = ()
            axioms[hole] = []
            continue
        parts = _part_results(hole, results)
        missing = [r for r in parts if not _proved(r)]
        if parts and not missing:  # searched part by part: filled when every part is
            found[hole] = tuple(admit_block(r.get("reverts") or [], r["proof"]) for r in parts)
            axioms[hole] = [a for r in parts for a in r.get("axioms") or []]
            continue
        record = results.get(hole.name)
        if record is not None and _proved(record):
            found[hole] = tuple(record["proof"])
            axioms[hole] = list(record.get("axioms") or [])
        elif missing:
            why = f"{_part_label(missing[0]['name'])}: {_why_not(missing[0])}"
            whole = f"; from the statement: {_why_not(record)}" if record is not None else ""
            outcome.left[hole] = why + whole
        else:
            outcome.left[hole] = why_left(hole, record, unwritten)
    paths = {source.module: source.path for source in project.sources}
    files = {source.module: source.file for source in project.sources}
    for module in sorted({hole.source.module for hole in found}):
        source = next(h.source for h in found if h.source.module == module)
        if file_changed(source.path, plan.digests[module]):
            outcome.changed_files.append(source.file)
            for hole in [h for h in found if h.source.module == module]:
                outcome.left[hole] = f"{source.file} changed since it was read: run prove again"
                del found[hole]
            continue
        changed = plan.changed_load(module, paths)
        if changed is not None:  # the proof was found and is rebuilt against its old text
            outcome.changed_files.append(files[changed])
            for hole in [h for h in found if h.source.module == module]:
                outcome.left[hole] = (
                    f"{files[changed]}, which {source.file} loads, changed since it was read: "
                    "run prove again"
                )
                del found[hole]
    admitted = plan.admitted_modules()
    # A library's admitted lemma is printed by a path its modules make unambiguous:
    # every project module may load any traced library module.
    outside = sorted(set(plan.library_admitted.values()))
    requires = {module: [*plan.requires(module), *outside] for module in plan.graph}
    if not found:
        return outcome
    with ScratchBuild(project, plan.graph, coqc=coqc, jobs=jobs, leave_out=plan.unbuilt) as scratch:
        while True:
            accepted, rejected = verify_fills(scratch, found)
            outcome.left.update(rejected)
            filled = {full_name(h) for h in accepted}
            still = {name: module for name, module in admitted.items() if name not in filled}
            final = _final_axioms(scratch, accepted, axioms)
            resting = resting_on_admitted(final, accepted, still, requires)
            if not strict or not resting:
                break
            false = false_lemmas(plan, results)
            for hole, lemmas in resting.items():
                named = ", ".join(f"{n} (false as stated)" if n in false else n for n in lemmas)
                outcome.left[hole] = f"--strict: rests on {named}, still Admitted"
            found = {h: p for h, p in accepted.items() if h not in resting}
        outcome.rebuild_seconds = scratch.seconds
    outcome.filled = accepted
    outcome.resting = resting
    return outcome
