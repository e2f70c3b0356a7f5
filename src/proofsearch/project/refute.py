"""Holes that are false as stated: the statement's negation proved at small values.

A course leaves an exercise false on purpose (``Theorem bad : forall n : nat, n + 1 =
n.``), and a user's lemma can be misstated. The search then ends "no proof within the
budget", which reads as if more time would help (audit 54). For a hole left open whose
statement is a proposition, this tries to prove ``~ (forall BINDERS, TYPE)`` by
instantiating the leading binders with small values (``0``, ``1``, ``2``; ``true``,
``false``; ``nil``; ``nat`` for a type) and closing the contradiction with Coq's own
tactics (``discriminate``, ``congruence``, ``easy``, ``inversion``). The scripts run in
one prover session at the hole, within a small budget; the one that proves it is then
compiled from scratch (``check_proof``) on no axiom the hole may not use, so that a
negation resting on another admitted exercise is not reported. Nothing is written:
the hole stays ``Admitted``, and its reason says why.
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from proofsearch.env.base import Prover
from proofsearch.env.coq.binders import leading_binders, statement_parts
from proofsearch.env.coq.checker import check_proof
from proofsearch.env.coq.sentences import SentenceError, blank_comments_and_strings
from proofsearch.project.replay import Replay
from proofsearch.theorem import Theorem

#: The refutation's lemma name (inside the hole's modules, as the hole is).
NAME = "proofsearch_refutation"
#: Scripts tried per hole, at most.
MOST_SCRIPTS = 24
#: Values tried for a binder of each type (written as the statement writes the type).
VALUES: dict[str, tuple[str, ...]] = {
    "nat": ("0", "1", "2"),
    "bool": ("true", "false"),
    "Type": ("nat",),
    "Set": ("nat",),
    "Prop": ("False", "True"),
    "Z": ("0%Z", "1%Z", "(-1)%Z"),
}
#: What closes ``H : <a false instance>`` after ``simpl in H`` (core tactics only);
#: the script tries them together, and the one that does it alone is what is shown.
CLOSERS = ("discriminate H", "congruence", "easy", "inversion H")
CLOSE = f"first [{' | '.join(CLOSERS)}]"


@dataclass(frozen=True)
class Refutation:
    """The values that falsify a statement, and the negation's checked proof."""

    values: tuple[tuple[str, str], ...]
    proof: str

    def reason(self) -> str:
        """What the user reads for the hole left ``Admitted``."""
        where = ", ".join(f"{name} := {value}" for name, value in self.values)
        at = f" for {where}" if where else ""
        return f"false as stated: it does not hold{at} (its negation is proved: {self.proof})"


_INDUCTIVE = re.compile(
    r"\bInductive\s+([A-Za-z_][\w']*)\s*(?::\s*(?:Type|Set)\s*)?:=(.*?)\.(?=\s|$)", re.S
)


def header_values(header: str) -> dict[str, tuple[str, ...]]:
    """Values of the inductive types the header declares without parameters: a course's
    ``Inductive nat' := O' | S' (n : nat')`` gives ``(O', (S' O'))``: each constant
    constructor, then a constructor of one argument of the type applied to the first.
    A type declared again (``Module NatPlayground. Inductive nat := …``) takes the last."""
    try:
        text = blank_comments_and_strings(header)
    except SentenceError:
        return {}
    found: dict[str, tuple[str, ...]] = {}
    for name, body in _INDUCTIVE.findall(text):
        constants: list[str] = []
        unary: list[str] = []
        for part in (p.strip() for p in body.split("|")):
            head = re.match(r"([A-Za-z_][\w']*)\s*(.*)$", part, re.S)
            if head is None:
                continue
            rest = " ".join(head[2].split())
            if rest in ("", f": {name}"):
                constants.append(head[1])
            elif rest in (f"({_ARG} : {name})", f": {name} -> {name}") or re.fullmatch(
                rf"\(\s*{_ARG}\s*:\s*{re.escape(name)}\s*\)", rest
            ):
                unary.append(head[1])
        values = constants[:2] + [f"({c} {constants[0]})" for c in unary[:1] if constants]
        if values:
            found[name] = tuple(values)
    return found


#: A constructor argument's name.
_ARG = r"[A-Za-z_][\w']*"


def _values(kind: str | None, declared: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    if kind is None:
        return ()
    if kind in declared:  # the file's own type (a course's nat', or its own nat)
        return declared[kind]
    if kind in VALUES:
        return VALUES[kind]
    if kind.startswith("list ") or kind == "list":
        return ("nil",)
    return ()


def scripts(
    params: str, kind: str, declared: dict[str, tuple[str, ...]] | None = None
) -> list[tuple[tuple[tuple[str, str], ...], str]]:
    """The refutation scripts for ``~ (forall params, kind)``: (values, script), the
    smaller values first. Binders whose type has no values here (``declared``: the
    header's own inductive types) end the instantiation (the ones before it are still
    tried)."""
    binders = leading_binders(f"forall {params}, {kind}" if params else kind)
    # Implicit binders ({A}, [B]) take their values only through `@H`.
    head = "@H" if re.search(r"[{\[]", params) or re.match(r"\s*forall\s*[{\[]", kind) else "H"
    chosen: list[tuple[str, tuple[str, ...]]] = []
    for name, binder_type in binders:
        values = _values(binder_type, declared or {})
        if not values:
            break
        chosen.append((name, values))
    found: list[tuple[tuple[tuple[str, str], ...], str]] = [((), f"intro H; simpl in H; {CLOSE}")]
    for combination in itertools.islice(
        itertools.product(*(values for _, values in chosen)), MOST_SCRIPTS - 1
    ):
        if not combination:
            break
        named = tuple(zip((name for name, _ in chosen), combination, strict=True))
        applied = f"{head} {' '.join(combination)}"
        script = f"intro H; specialize ({applied}); simpl in H; {CLOSE}"
        found.append((named, script))
    return found


def negation(statement: str) -> str | None:
    """``Lemma proofsearch_refutation : ~ (forall PARAMS, TYPE).`` for a proposition's
    statement; None for anything else."""
    parts = statement_parts(statement)
    if parts is None:
        return None
    inner = f"forall {parts.params}, {parts.type}" if parts.params else parts.type
    return f"Lemma {NAME} : ~ ({inner})."


def refute(
    record: Mapping[str, Any],
    prover: Callable[[], Prover],
    *,
    budget: float,
    check: Mapping[str, Any],
) -> Refutation | None:
    """The hole's statement refuted, or None. ``check``: ``check_proof``'s options
    (coqc, args, timeout); ``budget``: seconds for the scripts in the session."""
    statement = str(record["statement"])
    negated = negation(statement)
    parts = statement_parts(statement)
    if negated is None or parts is None:
        return None
    theorem = Theorem(f"{record['name']}#refute", negated, str(record["header"]))
    deadline = time.monotonic() + budget
    with Replay(theorem, prover, timeout=min(2.0, budget)) as replay:
        declared = header_values(str(record["header"]))
        for values, script in scripts(parts.params, parts.type, declared):
            if time.monotonic() > deadline:
                return None
            if replay.proves([script]):
                plain = (script.replace(CLOSE, closer) for closer in CLOSERS)
                shown = next((p for p in plain if replay.proves([p])), script)
                return _checked(record, negated, values, shown, check)
    return None


def _checked(
    record: Mapping[str, Any],
    negated: str,
    values: tuple[tuple[str, str], ...],
    script: str,
    check: Mapping[str, Any],
) -> Refutation | None:
    """The negation's proof compiled from scratch after the hole's header, inside its
    modules and sections, on the axioms the hole's statement allows (not the project's
    admitted lemmas: a false exercise refutes anything)."""
    qualid = str(record.get("qualid") or "")
    modules = qualid.rsplit(".", 1)[0] + "." if "." in qualid else ""
    checked = check_proof(
        str(record["header"]), negated, [script],
        footer=str(record.get("footer") or ""), name=modules + NAME,
        allowed_axioms=record.get("allowed_axioms") or (), **check,
    )  # fmt: skip
    return Refutation(values, script) if checked.ok else None


def refute_open(
    records: Sequence[Mapping[str, Any]],
    results: Mapping[str, Mapping[str, Any]],
    prover: Callable[[], Prover],
    *,
    budget: float,
    check: Mapping[str, Any],
) -> dict[str, Refutation]:
    """The holes left open (searched whole: no part, no obligation) that are false."""
    found: dict[str, Refutation] = {}
    for record in records:
        name = str(record["name"])
        status = (results.get(name) or {}).get("status")
        if "#" in name or status not in ("open", "failed"):
            continue
        refutation = refute(record, prover, budget=budget, check=check)
        if refutation is not None:
            found[name] = refutation
    return found
