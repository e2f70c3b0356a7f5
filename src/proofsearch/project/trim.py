"""Proofs without what they do not need: ``using`` premises, steps the rest of the
proof does without, and the parts of a last compound step after its goals are closed;
then in plainer words: ``reflexivity`` for a last ``split`` that proves an equation, and
the statement's own names for the variables the first step introduces
(:mod:`.statement_names`).

The search keeps the first proof it finds: ``eauto using`` with the four premises
retrieved for the goal when none is needed, or a step whose work a later one does again
(``rewrite map_id`` before ``induction l; simpl; f_equal; auto``, which proves the goal
alone). A person would not write either. Each simplification is kept only when the
proof still holds (the caller's ``holds``: run in a session at the hole, the version
kept then compiled from scratch on no axiom it did not rest on before); at most
:data:`MOST_CHECKS` versions a proof, so that presenting stays a small part of a run.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from proofsearch.env.coq.binders import top_level
from proofsearch.generate.knn.prefixes import sentence_parts
from proofsearch.project.statement_names import with_statement_names

#: Versions of one proof tried (each run in the hole's session; :mod:`.replay`). Two
#: ``using`` clauses of four names each take ten (audit 54's ``rev_app_distr`` kept
#: ``test_rev1`` at six).
MOST_CHECKS = 12
#: Proofs of more steps than this keep their steps (only their ``using`` are trimmed).
MOST_STEPS = 4
#: Last steps that prove ``x = x`` by its constructor, where a person writes
#: ``reflexivity`` (audit 54: ``plus O n = n`` proved by ``split``).
_CONSTRUCTOR_STEPS = frozenset(
    ("split", "constructor", "econstructor", "exact eq_refl", "apply eq_refl", "apply refl_equal")
)
#: A first part that only names what the goal binds: kept before the rest.
_INTRODUCES = re.compile(r"\s*(?:intros?\b|move\s*=>|revert\b)")
#: ssreflect steps whose head does something before the intro pattern (not ``move=>``).
_SSR_HEAD = re.compile(r"\s*(?:(?:case|elim|apply)\b|move\s*/)")
_USING = re.compile(
    r"^(?P<head>.*?)\s+using\s+(?P<names>[\w'.]+(?:\s*,\s*[\w'.]+)*)(?P<tail>(?:\s+with\b.*)?)$",
    re.S,
)


def trimmed(
    proof: Sequence[str], holds: Callable[[list[str]], bool], statement: str = ""
) -> list[str]:
    """``proof`` with what it does not need left out, then in plainer words (the
    ``statement``'s binder names); ``holds`` checks a candidate."""
    budget = [MOST_CHECKS]

    def test(candidate: list[str]) -> bool:
        if budget[0] <= 0:
            return False
        budget[0] -= 1
        return holds(candidate)

    current = list(proof)
    for index in range(len(current)):
        current = _fewer_premises(current, index, test)
    if 2 <= len(current) <= MOST_STEPS:
        index = 0
        while index < len(current) - 1 and budget[0] > 0:
            candidate = current[:index] + current[index + 1 :]
            if test(candidate):
                current = candidate
            else:
                index += 1
    if not current:
        return current
    current = _shorter_last(current, test)
    current = _without_unused_patterns(current, test)
    if current[-1].strip() in _CONSTRUCTOR_STEPS and test([*current[:-1], "reflexivity"]):
        current = [*current[:-1], "reflexivity"]
    renamed = with_statement_names(current, statement) if statement else None
    return renamed if renamed is not None and test(renamed) else current


def _shorter_last(proof: list[str], test: Callable[[list[str]], bool]) -> list[str]:
    """The last step without the ``;`` parts after the goals are closed: a neighbour's
    sentence ``by case: b => //; case: b`` proves a goal that ``by case: b => //`` does
    (an audit read the dead tail as odd). The first part alone is tried, then the step
    without its first part (``replace (a - a) with …; auto with zarith`` on a goal with
    no ``a - a``, where ``auto with zarith`` does it all: audit 45), then all but the
    last part, then the last part without its ssreflect intro pattern."""
    closing, parts = sentence_parts(proof[-1])
    if not parts or not all(parts):
        return proof
    versions = [parts[:1], parts[:-1]] if len(parts) >= 2 else []
    if len(parts) >= 2 and not _INTRODUCES.match(parts[0]):
        versions.insert(1, parts[1:])  # not for `intros n; lia`: as a person writes it
    head = _without_intro_pattern(parts[-1])
    if head is not None:  # `by case: a; case: b => // ->` where `by case: a; case: b` does
        versions.append([*parts[:-1], head])
    if not versions:
        return proof
    for kept in dict.fromkeys("; ".join(version) for version in versions):
        candidate = [*proof[:-1], closing + kept]
        if test(candidate):
            return candidate
    return proof


#: An ``as [..|..]`` naming pattern of ``induction``/``destruct`` (no brackets inside).
_AS_PATTERN = re.compile(r"(\b(?:induction|destruct)\s+[\w']+)\s+as\s+\[[^\[\]]*\]")


def _without_unused_patterns(proof: list[str], test: Callable[[list[str]], bool]) -> list[str]:
    """Each step without the ``as [|n IHn]`` patterns its proof does not need: a
    neighbour's ``induction n as [|n IHn]`` on a type with no recursive case (a course's
    ``bool'``) made Coq warn "Unused introduction patterns: IHn" (verification 56)."""
    for index, step in enumerate(proof):
        bare = _AS_PATTERN.sub(r"\1", step)
        if bare != step:
            candidate = [*proof[:index], bare, *proof[index + 1 :]]
            if test(candidate):
                proof = candidate
    return proof


def _without_intro_pattern(part: str) -> str | None:
    """An ssreflect step's head without its intro pattern (``case: b => // ->`` gives
    ``case: b``), or None: the step is not ``case``/``elim``/``apply``/``move/`` with a
    pattern after ``=>`` at the top level (audits 45 and 44 read such tails as odd where
    nothing needed them)."""
    arrow = top_level(part, "=>") if _SSR_HEAD.match(part) else -1
    if arrow < 0:
        return None
    head = part[:arrow].rstrip()
    return head + "." if head and part.rstrip().endswith(".") else head or None


def _fewer_premises(proof: list[str], index: int, test: Callable[[list[str]], bool]) -> list[str]:
    """The ``using`` clause of step ``index`` left out, else as few of its names as hold."""
    found = _USING.match(proof[index])
    if found is None:
        return proof
    names = [name.strip() for name in found["names"].split(",")]

    def step(kept: Sequence[str]) -> str:
        using = f" using {', '.join(kept)}" if kept else ""
        return f"{found['head']}{using}{found['tail']}"

    bare = [*proof[:index], step([]), *proof[index + 1 :]]
    if test(bare):
        return bare
    kept = list(names)
    for name in names if len(names) > 1 else []:
        fewer = [n for n in kept if n != name]
        candidate = [*proof[:index], step(fewer), *proof[index + 1 :]]
        if test(candidate):
            kept = fewer
    return [*proof[:index], step(kept), *proof[index + 1 :]]
