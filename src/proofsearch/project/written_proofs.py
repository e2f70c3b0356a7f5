"""The proofs ``prove`` writes: premises named as the file would, subgoals bulleted.

The search's proof is a flat list of tactics that names a library's premise by its full
path (``Coq.ZArith.BinInt.Z.add_comm``). Written into a user's file that reads as
machine output, and it ties the proof to the library's logical prefix. Before the
rebuild, :func:`present_found` gives each proved hole

- the shortest names Coq resolves to the same objects at the hole
  (:mod:`proofsearch.env.coq.short_names`: asked, then the same re-check with the
  same axioms),
- no ``using`` premise or step it does not need, the statement's own names for what it
  introduces (:mod:`.trim`: the shorter versions
  run in one session at the hole (:mod:`.replay`), the one kept compiled from scratch
  on no new axiom), and
- bullets for the subgoals (:mod:`.bullets`: the goal counts replayed in the prover,
  the bulleted text compiled at the hole).

Each step is kept only when its check passes; otherwise the proof stays as it was. A
cache beside the results keeps the answers, so ``--write`` after a dry run writes the
same text without asking Coq again.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from proofsearch.env.base import Prover
from proofsearch.env.coq.checker import check_proof, compile_source
from proofsearch.env.coq.short_names import qualified_names, shorten_proof
from proofsearch.env.registry import make_prover
from proofsearch.project.admits import is_part
from proofsearch.project.bullets import bulleted, goal_counts
from proofsearch.project.replay import Replay
from proofsearch.project.trim import trimmed
from proofsearch.theorem import Theorem

#: A bullet needs a step that opens two goals and one step for each.
_FEWEST_STEPS_FOR_BULLETS = 3


@dataclass(frozen=True)
class Presentation:
    """What to do to the proofs found, and with which Coq."""

    coqc: str
    args: Sequence[str]
    timeout: float
    prover_options: Mapping[str, Any]
    short_names: bool = True
    bullets: bool = True
    #: Leave out ``using`` premises and steps the proof does not need (:mod:`.trim`).
    trim: bool = True
    #: Run trimming's versions in a session first (:mod:`.replay`); ``False`` compiles
    #: each from scratch, as before the session (``benchmarks/presentation.py``).
    in_session: bool = True


def _key(record: Mapping[str, Any], proof: Sequence[str], how: Presentation) -> str:
    settings = [how.short_names, how.bullets, how.trim, how.coqc, list(how.args)]
    return json.dumps([record.get("source_sha256"), record.get("header"), list(proof), settings])


def _compiles(record: Mapping[str, Any], lines: Sequence[str], how: Presentation) -> bool:
    """The bulleted proof compiles at the hole as the file will hold it: its tactics are
    the checked proof's, and no ``Set Default Goal Selector`` line precedes it (the
    search's and the re-check's :data:`~proofsearch.env.coq.checker.FIRST_GOAL`), so
    that a project whose default is ``"!"`` (stdpp, Iris) gets a proof it accepts."""
    footer = str(record.get("footer") or "").strip()
    header, statement = str(record["header"]).rstrip(), str(record["statement"]).strip()
    body = "".join(f"  {line}.\n" for line in lines)
    source = f"{header}\n{statement}\nProof.\n{body}Qed.\n"
    done = compile_source(
        source + (footer + "\n" if footer else ""), "ProofsearchBullets",
        coqc=how.coqc, args=how.args, timeout=how.timeout,
    )  # fmt: skip
    return done is not None and done.returncode == 0


def _with_bullets(
    record: Mapping[str, Any], proof: list[str], how: Presentation, replay: Replay
) -> list[str]:
    if len(proof) < _FEWEST_STEPS_FOR_BULLETS:
        return proof
    session = replay.session()
    counts = goal_counts(session, proof) if session is not None else None
    lines = bulleted(proof, counts) if counts is not None else None
    return lines if lines is not None and _compiles(record, lines, how) else proof


def _check_options(record: Mapping[str, Any], how: Presentation) -> dict[str, Any]:
    """What a from-scratch check of a hole's proof needs besides header, statement, proof."""
    return {
        "footer": str(record.get("footer") or ""),
        "name": str(record["qualid"]) if record.get("qualid") else None,
        "allowed_axioms": record.get("allowed_axioms") or (),
        "any_axiom": bool(record.get("any_axiom")),
        "functor_parameters": tuple(record.get("functor_parameters") or ()),
        "in_place": bool(record.get("check_in_place")),
        "coqc": how.coqc,
        "args": how.args,
        "timeout": how.timeout,
    }


def _present(
    record: Mapping[str, Any],
    theorem: Theorem,
    result: Mapping[str, Any],
    how: Presentation,
    prover: Callable[[], Prover],
) -> list[str]:
    proof = list(result["proof"])
    if how.short_names and qualified_names(proof):
        proof = list(
            shorten_proof(
                str(record["header"]), str(record["statement"]), proof,
                axioms=result.get("axioms") or (), **_check_options(record, how),
            ).proof
        )  # fmt: skip
    with Replay(theorem, prover, how.timeout) as replay:
        if how.trim:
            proof = _trimmed(record, result, proof, how, replay)
        # A part's proof goes inside ``{ revert …. P. }`` on one line: no bullets.
        if how.bullets and not is_part(str(record["name"])):
            proof = _with_bullets(record, proof, how, replay)
    return proof


def _trimmed(
    record: Mapping[str, Any],
    result: Mapping[str, Any],
    proof: list[str],
    how: Presentation,
    replay: Replay,
) -> list[str]:
    """``proof`` without the ``using`` premises and steps it does not need (:mod:`.trim`):
    the versions run in the session, the one kept compiled from scratch on no new
    axiom. Where the session accepts a version that the check refuses (an axiom the
    shorter proof reaches, a check only ``Qed`` makes), each version the session accepts
    is checked from scratch, as all were before the session."""
    if result.get("header_suffix"):  # CoqHammer's tactics: checked with their import only
        return proof
    axioms = set(result.get("axioms") or ())

    def checks(candidate: list[str]) -> bool:
        checked = check_proof(
            str(record["header"]), str(record["statement"]), candidate,
            **_check_options(record, how),
        )  # fmt: skip
        return checked.ok and set(checked.axioms) <= axioms

    statement = str(record["statement"])
    if not how.in_session:
        return trimmed(proof, checks, statement)
    kept = trimmed(proof, replay.proves, statement)
    if kept == proof or checks(kept):
        return kept
    both = lambda candidate: replay.proves(candidate) and checks(candidate)  # noqa: E731
    return trimmed(proof, both, statement)


def present_found(
    records: Sequence[Mapping[str, Any]],
    theorems: Mapping[str, Theorem],
    results: Mapping[str, dict[str, Any]],
    cache: Path,
    how: Presentation,
    jobs: int,
) -> dict[str, dict[str, Any]]:
    """``results`` with each checked proof as it is to be written; a result whose proof
    changes keeps the proof as found under ``proof_found``."""
    known: dict[str, list[str]] = {}
    if cache.is_file():
        try:
            known = json.loads(cache.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            known = {}
    todo: list[tuple[Mapping[str, Any], dict[str, Any]]] = []
    for record in records:
        result = results.get(str(record["name"])) or {}
        proved = result.get("status") == "proved" and result.get("checked")
        if proved and result.get("proof") and str(record["name"]) in theorems:
            todo.append((record, result))

    def present(item: tuple[Mapping[str, Any], dict[str, Any]]) -> tuple[str, list[str]]:
        record, result = item
        key = _key(record, result["proof"], how)
        if key in known:
            return key, known[key]
        return key, _present(record, theorems[str(record["name"])], result, how, prover)

    held = threading.local()
    provers: list[Prover] = []

    def prover() -> Prover:
        """This thread's prover, started on first use and kept for its next proofs."""
        if getattr(held, "prover", None) is None:
            held.prover = make_prover("coq", how.prover_options)
            provers.append(held.prover)
        return held.prover  # type: ignore[no-any-return]

    try:
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            answers = dict(pool.map(present, todo))
    finally:
        for started in provers:
            started.close()
    out = dict(results)
    for record, result in todo:
        proof = answers[_key(record, result["proof"], how)]
        if proof != list(result["proof"]):
            out[str(record["name"])] = {**result, "proof": proof, "proof_found": result["proof"]}
    if answers:
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(answers), encoding="utf-8")
    return out
