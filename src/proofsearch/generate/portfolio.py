"""``portfolio``: a fixed list of scored tactics, some of them templates over the goal.

A line of a tactics file is ``TACTIC`` or ``TACTIC<TAB>LOGPROB``. Templates name the
goal's parts: ``{var}`` (each variable), ``{binder}`` (each variable the conclusion binds
with ``forall``), ``{hyp}`` (each hypothesis), ``{eq}`` (each equation hypothesis),
``{bools}`` (the atoms of a boolean conclusion, ``a, (x \\in A)``:
:mod:`~proofsearch.generate.boolean_cases`), ``{scrutinee}`` (each term the conclusion's
``match``/``if`` inspects: :mod:`~proofsearch.generate.scrutinees`), ``{intro_pattern}``
(``? [? ?] [?|?]``, taking apart the conclusion's structured premises as ``intros``
introduces them: :mod:`~proofsearch.generate.premise_patterns`), ``{rewrite_db}`` (each
of the theorem's ``rewrite_databases``: a project's ``Hint Rewrite`` databases, which
``prove`` gives its holes), ``{call}``, ``{fun}`` and ``{funelim}`` (each function
application of the conclusion, its function, and ``funelim (call); simp fun``:
:mod:`~proofsearch.generate.applications`, for Equations), ``{rel_hyp}`` (each
hypothesis ``R a b`` whose relation is
one of the theorem's ``setoid_relations``, the project's own equivalences: ``rewrite H``
rewrites along it); a template yields one tactic per name, with the template's score.
Lines without a score get ``-0.1 * rank``, so the file's order is the preference order.

For a theorem whose header imports ssreflect (:func:`~proofsearch.generate.ssreflect.
loads_ssreflect`), the Coq portfolio also offers ssreflect's forms (``done``, ``by []``,
``move=> x``, ``case: x``, ``elim: n``, ``apply/eqP`` ...: ``portfolios/coq-ssreflect.txt``),
which would be syntax errors anywhere else. Likewise a library's own tactics where the
header loads the library (CoqInterval's ``interval``, Gappa's ``gappa``:
:mod:`~proofsearch.generate.library_tactics`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from importlib import resources
from pathlib import Path

from proofsearch.generate.base import Suggestion, TacticGenerator, best_unique
from proofsearch.generate.goals_text import GoalNames, goal_names
from proofsearch.generate.library_tactics import library_tactics
from proofsearch.generate.ssreflect import loads_ssreflect
from proofsearch.theorem import Theorem

_PLACEHOLDERS = {
    "{var}": "variables",
    "{binder}": "binders",
    "{hyp}": "hypotheses",
    "{eq}": "equations",
    "{bools}": "booleans",
    "{scrutinee}": "scrutinees",
    "{intro_pattern}": "intro_patterns",
    "{call}": "calls",
    "{fun}": "functions",
    "{funelim}": "eliminations",
    "{rewrite_db}": "",
    "{rel_hyp}": "",
}


class TacticsFileError(ValueError):
    """A line of a tactics file is malformed (message names the file and line)."""


def parse_tactics(lines: Iterable[str], source: str = "<tactics>") -> list[Suggestion]:
    """Parse a tactics file's lines; raise :class:`TacticsFileError` naming every bad line."""
    tactics: list[Suggestion] = []
    errors: list[str] = []
    for number, raw in enumerate(lines, start=1):
        line = raw.removesuffix("\n").removesuffix("\r")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        tactic, tab, score = line.partition("\t")
        logprob = -0.1 * len(tactics)
        if tab:
            try:
                logprob = float(score)
            except ValueError:
                errors.append(f"{source}:{number}: logprob: not a number: {score!r}")
                continue
            if logprob > 0:
                errors.append(f"{source}:{number}: logprob: must be ≤ 0, got {logprob}")
                continue
        if not tactic.strip():
            errors.append(f"{source}:{number}: tactic: empty")
            continue
        tactics.append(Suggestion(tactic.strip(), logprob))
    if errors:
        raise TacticsFileError("\n".join(errors))
    if not tactics:
        raise TacticsFileError(f"{source}: no tactics")
    return tactics


def split_lines(text: str) -> list[str]:
    """``text``'s lines: only ``\\n`` and ``\\r\\n`` end one.

    ``str.splitlines`` and text-mode reads (universal newlines) also end a line at a lone
    ``\\r`` (``splitlines`` also at a form feed, ``\\x1c``, ``\\u2028``...): that cut a
    tactic in two and misnumbered every later line. So files are read as bytes.
    """
    return [line.removesuffix("\r") for line in text.split("\n")]


def load_tactics(path: str | Path) -> list[Suggestion]:
    """Read a tactics file."""
    path = Path(path)
    return parse_tactics(split_lines(path.read_bytes().decode("utf-8")), str(path))


def default_tactics(prover: str) -> list[Suggestion]:
    """The bundled portfolio for ``prover`` (``coq`` or ``lean``)."""
    text = resources.files("proofsearch.generate.portfolios").joinpath(f"{prover}.txt")
    return parse_tactics(split_lines(text.read_bytes().decode("utf-8")), f"portfolio {prover}")


def ssreflect_tactics() -> list[Suggestion]:
    """The bundled ssreflect forms (``portfolios/coq-ssreflect.txt``)."""
    return default_tactics("coq-ssreflect")


class PortfolioGenerator(TacticGenerator):
    """Suggests every tactic of the portfolio (templates instantiated), best first.

    ``ssreflect`` (default: the bundled forms) is added for theorems whose header
    imports ssreflect; pass ``[]`` to never add them. ``libraries``: add a library's own
    tactics where the header loads it (:mod:`~proofsearch.generate.library_tactics`).
    """

    def __init__(
        self,
        tactics: Iterable[Suggestion],
        max_per_template: int = 4,
        ssreflect: Iterable[Suggestion] | None = None,
        libraries: bool = True,
    ) -> None:
        self.tactics = list(tactics)
        self.max_per_template = max_per_template
        self.ssreflect = ssreflect_tactics() if ssreflect is None else list(ssreflect)
        #: Whether a library's own tactics are added where the header loads it.
        self.libraries = libraries

    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        names = functools.cache(lambda: goal_names(goals))  # parsed once, when asked
        out: list[Suggestion] = []
        tactics = self.tactics
        if self.ssreflect and loads_ssreflect(theorem.header):
            tactics = [*tactics, *self.ssreflect]
        if self.libraries:
            tactics = [*tactics, *library_tactics(theorem.header)]
        for item in tactics:
            holes = [p for p in _PLACEHOLDERS if p in item.tactic]
            if not holes:
                out.append(item)
                continue
            hole = holes[0]
            for name in _fillers(hole, names, theorem)[: self.max_per_template]:
                out.append(Suggestion(item.tactic.replace(hole, name), item.logprob))
        return best_unique(out, n)


def _fillers(hole: str, names: Callable[[], GoalNames], theorem: Theorem) -> list[str]:
    """What template ``hole`` is filled with: names of the goal, or of the theorem's
    fields (``{rewrite_db}``; ``{rel_hyp}`` reads both, the goal only when the theorem
    has relations)."""
    fields = theorem.extra
    if hole == "{rewrite_db}":
        return [str(db) for db in fields.get("rewrite_databases") or []]
    if hole == "{rel_hyp}":
        relations = [str(r) for r in fields.get("setoid_relations") or []]
        return names().hypotheses_about(relations) if relations else []
    found: list[str] = getattr(names(), _PLACEHOLDERS[hole])
    return found
