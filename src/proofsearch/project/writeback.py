"""Which found proofs may be written: those that keep the whole project building.

:func:`verify_fills` fills every hole that has a proof, compiles the changed files and
their dependents in a :class:`~proofsearch.project.rebuild.ScratchBuild`, and when a
file fails, blames one proof and tries again without it: the proof whose lines hold
the error, or else (a dependent broke, or a later line of the same file) the one among
the proofs the failing file sees whose removal alone lets it compile. Inside a Section
the usual cause is that ``Qed`` generalises a lemma over the section variables its
proof uses, where ``Admitted`` generalised over all of them: its type changed for the
code after ``End``. :func:`resting_on_admitted` reads ``Print Assumptions``' axioms
(the results' ``axioms``) to find proofs that still rest on an ``Admitted`` lemma.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from proofsearch.env.coq.obligations import OBLIGATION_CONSTANT
from proofsearch.project.holes import Hole
from proofsearch.project.patch import fill_with_lines
from proofsearch.project.rebuild import BuildFailure, ScratchBuild, requirements

Fills = dict[Hole, tuple[str, ...]]

SECTION_NOTE = (
    " (inside a Section: Qed generalises the lemma over the section variables its proof "
    "uses, Admitted over all of them, so its type changed for what follows)"
)


class ProjectBroken(Exception):
    """The project does not build even without any filled proof: nothing can be written."""

    def __init__(self, failure: BuildFailure) -> None:
        super().__init__(
            f"{failure.file}:{failure.line}: the project does not build without any filled "
            f"proof: {failure.summary}"
        )
        self.failure = failure


def filled_texts(
    originals: Mapping[str, str], fills: Mapping[Hole, Sequence[str]]
) -> tuple[dict[str, str], dict[Hole, tuple[int, int]]]:
    """Module → filled text for the modules with fills, and each fill's lines."""
    by_module: dict[str, dict[Hole, Sequence[str]]] = {}
    for hole, proof in fills.items():
        by_module.setdefault(hole.source.module, {})[hole] = proof
    texts: dict[str, str] = {}
    lines: dict[Hole, tuple[int, int]] = {}
    for module, module_fills in by_module.items():
        texts[module], module_lines = fill_with_lines(originals[module], module_fills)
        lines.update(module_lines)
    return texts, lines


def verify_fills(
    scratch: ScratchBuild, fills: Mapping[Hole, Sequence[str]]
) -> tuple[Fills, dict[Hole, str]]:
    """(fills that build, rejected fills with the reason)."""
    accepted: Fills = {hole: tuple(proof) for hole, proof in fills.items()}
    rejected: dict[Hole, str] = {}
    while accepted:
        texts, lines = filled_texts(scratch.originals, accepted)
        failure = scratch.build(texts)
        if failure is None:
            return accepted, rejected
        culprit = _blame(scratch, failure, accepted, lines)
        where = _user_line(failure, accepted, lines, scratch.originals)
        reason = f"breaks {failure.file}:{where}: {failure.summary}"
        elsewhere = culprit.source.module != failure.module
        if culprit.in_section and (elsewhere or not _inside(lines[culprit], failure.line)):
            reason += SECTION_NOTE
        rejected[culprit] = reason
        del accepted[culprit]
    failure = scratch.build({})
    if failure is not None:
        raise ProjectBroken(failure)
    return accepted, rejected


def _user_line(
    failure: BuildFailure,
    fills: Iterable[Hole],
    lines: Mapping[Hole, tuple[int, int]],
    originals: Mapping[str, str],
) -> int:
    """The failing line as the user's file numbers it (the compiler's is a line of the
    file with the proofs filled in, which has more lines), or the hole's line when the
    failure lies in a proof written for it."""
    shift = 0
    here = sorted((h for h in fills if h.source.module == failure.module), key=lambda h: h.start)
    for hole in here:
        first, last = lines[hole]
        if first <= failure.line <= last:
            return hole.line
        if last < failure.line:
            written = last - first
            shift += written - originals[hole.source.module][hole.start : hole.end].count("\n")
    return failure.line - shift


def _inside(span: tuple[int, int], line: int) -> bool:
    return span[0] <= line <= span[1]


def _blame(
    scratch: ScratchBuild,
    failure: BuildFailure,
    accepted: Fills,
    lines: Mapping[Hole, tuple[int, int]],
) -> Hole:
    here = [h for h in accepted if h.source.module == failure.module]
    for hole in here:
        if _inside(lines[hole], failure.line):
            return hole
    seen = requirements(scratch.graph, failure.module)
    candidates = [h for h in here if lines[h][1] < failure.line]
    candidates += [h for h in accepted if h.source.module in seen]
    if not candidates:
        raise ProjectBroken(failure)
    if len(candidates) == 1:
        return candidates[0]
    for hole in reversed(candidates):  # the latest first: the likeliest to matter
        trial = {h: p for h, p in accepted.items() if h is not hole}
        texts, _ = filled_texts(scratch.originals, trial)
        if scratch.build(texts, until=failure.module) is None:
            return hole
    return candidates[-1]


def full_name(hole: Hole) -> str:
    """The hole's name from the top (``Proj.A.L.lemma``: its module, then ``qualid``)."""
    return f"{hole.source.module}.{hole.qualid}"


def resting_on_admitted(
    axioms: Mapping[Hole, Iterable[str]],
    filled: Iterable[Hole],
    admitted: Mapping[str, str],
    requires: Mapping[str, Iterable[str]] | None = None,
) -> dict[Hole, list[str]]:
    """Filled holes whose proof rests (directly, or through another filled hole) on a
    lemma that stays ``Admitted``, with those lemmas' names as printed.

    ``axioms`` are the axioms ``Print Assumptions`` listed for each proof (an
    ``Admitted`` lemma is one), printed as the hole's file and its loads name them: a
    lemma of the hole's own file relative to it (``L.r``), another's by the shortest
    suffix of its path that is unambiguous there (``Pmod.left_open``). ``admitted``:
    each lemma left ``Admitted``, by its full name → its module; ``requires``: each
    module → the modules it loads, among which a printed name resolves. Names are
    compared whole, never by their last part: a textbook's chapters reuse lemma names
    (``NatList.rev_involutive``, ``Poly.rev_involutive``), and a filled proof was said to
    rest on another file's namesake, or one resting on an admitted lemma went unsaid.
    """
    by_name = {full_name(hole): hole for hole in filled}
    modules = {**admitted, **{name: hole.source.module for name, hole in by_name.items()}}
    result: dict[Hole, list[str]] = {}

    def resolve(axiom: str, module: str) -> list[str]:
        own = f"{module}.{axiom}"
        if own in modules:
            return [own]
        seen = {module, *(requires.get(module, ()) if requires is not None else ())}
        return [
            name for name, where in modules.items()
            if name.endswith(f".{axiom}") and (requires is None or where in seen)
        ]  # fmt: skip

    def walk(hole: Hole, trail: frozenset[Hole]) -> dict[str, str]:
        """Full name -> the most qualified name printed for it: one lemma is printed
        ``Pmod.mod_le_2r`` by a later file and ``mod_le_2r`` inside its own."""
        found: dict[str, str] = {}

        def add(name: str, printed: str) -> None:
            if len(printed) > len(found.get(name, "")):
                found[name] = printed

        for axiom in axioms.get(hole, ()):
            names = resolve(axiom, hole.source.module)
            for name in names:
                if name in by_name:
                    if by_name[name] not in trail:
                        for deeper, printed in walk(by_name[name], trail | {hole}).items():
                            add(deeper, printed)
                else:
                    add(name, axiom)
            if not names and OBLIGATION_CONSTANT.fullmatch(axiom.rsplit(".", 1)[-1]):
                add(axiom, axiom)  # an obligation left Admitted that no hole names
        return found

    for hole in by_name.values():
        found = walk(hole, frozenset())
        if found:
            # Said as the hole's file names it when it is that file's, else as printed.
            own = f"{hole.source.module}."
            shown = {n.removeprefix(own) if n.startswith(own) else p for n, p in found.items()}
            result[hole] = sorted(shown)
    return result
