"""Along each lemma's reference proof: is the step the proof takes among the suggestions?

    python benchmarks/reference_walk.py THEOREMS.jsonl \\
        --index TRACE [--index TRACE ...] [--open-in RESULTS.jsonl] [--steps 8] \\
        [--n 64] [--probe 128] [--out WALK.jsonl]

A search proves a lemma only if, at each state on some proof's path, the step is among
the suggestions it tries. This walks each lemma's own proof (``reference_proof``, as
the extractor wrote it) sentence by sentence in a real Coq, and at each state asks each
stage of the default generator (``knn-portfolio``'s schedule, ``hammer`` left out) for
``--probe`` tactics: the step counts as *reached* at the rank of the first suggestion
that is the sentence itself or leads to the same state (the same goals, names
included), and as *missing* when none of them does. Bullets and braces are skipped (the
next tactic works on the first goal either way); the walk stops at the first sentence
that fails alone, or after ``--steps``. ``--open-in``: walk only the lemmas a search's
results file left unproved.

Prints one line per lemma (``--out``: also to a file) and a summary: the steps walked,
those reached among the first ``--n`` by each stage, the lemmas whose every walked step
was, and the heads of the first step no stage reached (what kind of step is missing).
A measure of the generator along human proofs, not of a search: a lemma has other
proofs, and a name that differs from the reference's (``intros`` gives ``H`` where the
proof says ``Hx``) counts as a different state.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from proofsearch.cli.errors import CommandError
from proofsearch.cli.traces import open_traces, recorded_coq_args
from proofsearch.data.theorems import load_theorems
from proofsearch.env.base import ProofState, Proved
from proofsearch.env.coq.backend import CoqConfig, CoqProver
from proofsearch.env.coq.sentences import (
    SentenceError,
    blank_comments_and_strings,
    split_sentences,
)
from proofsearch.generate.base import TacticGenerator
from proofsearch.generate.registry import make_generator
from proofsearch.generate.schedule import ScheduledGenerator
from proofsearch.theorem import Theorem

_STRUCTURE = frozenset({"{", "}"})


def steps_of(proof: str) -> list[str]:
    """The reference proof's tactic sentences, without their final ``.``, comments,
    bullets or braces."""
    try:
        sentences = split_sentences(proof)
    except SentenceError:
        return []
    out = []
    for sentence in sentences:
        text = " ".join(blank_comments_and_strings(sentence.text).split())
        if text.endswith(".") and not text.endswith("..."):
            text = text[:-1].rstrip()
        if text and text not in _STRUCTURE and text.strip("-+*"):
            out.append(text)
    return out


def stages_of(generator: TacticGenerator) -> dict[str, TacticGenerator]:
    """The generator's schedule stages by name (``hammer`` left out), or itself."""
    if not isinstance(generator, ScheduledGenerator):
        return {"generator": generator}
    return {
        name: generator.stage(i)
        for i, (name, _) in enumerate(generator.schedule())
        if name != "hammer"
    }


def select(theorems: list[Theorem], open_in: str | None) -> list[Theorem]:
    """``theorems``, or those the results file ``open_in`` left unproved."""
    if open_in is None:
        return theorems
    with open(open_in, encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    left_open = {row["name"] for row in rows if row.get("status") != "proved"}
    return [t for t in theorems if t.name in left_open]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("theorems")
    parser.add_argument("--index", action="append", required=True)
    parser.add_argument("--open-in", help="walk only the lemmas this results file left open")
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--n", type=int, default=64)
    parser.add_argument("--probe", type=int, default=128)
    parser.add_argument("--tactic-timeout", type=float, default=2.0)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if not 0 < args.n <= args.probe:
        parser.error(f"--n {args.n} --probe {args.probe}: give 0 < --n <= --probe")
    try:  # every input read before the generator's index is loaded
        theorems = select(load_theorems(args.theorems).theorems, args.open_in)
        coq_args = recorded_coq_args(open_traces(args.index))
    except (OSError, ValueError, CommandError) as exc:
        parser.error(str(exc))
    generator = make_generator("knn-portfolio", {"index": args.index})
    stages = stages_of(generator)
    prover = CoqProver(CoqConfig(args=tuple(coq_args)))
    out = args.out.open("w", encoding="utf-8") if args.out else None
    walked = 0
    reached: Counter[str] = Counter()
    whole: Counter[str] = Counter()
    missing: Counter[str] = Counter()
    try:
        for theorem in theorems:
            steps = steps_of(str(theorem.extra.get("reference_proof") or ""))
            line = walk(prover, theorem, steps[: args.steps], stages, args)
            if out is not None:
                out.write(json.dumps(line) + "\n")
                out.flush()
            print(json.dumps(line), flush=True)
            ranks = line["steps"]
            walked += len(ranks)
            for name in stages:
                hits = [r[name] is not None and r[name] < args.n for r in ranks]
                reached[name] += sum(hits)
                whole[name] += bool(ranks) and all(hits)
            for r in ranks:
                if all(r[name] is None or r[name] >= args.n for name in stages):
                    missing[r["step"].split()[0]] += 1
                    break
    finally:
        prover.close()
        if out is not None:
            out.close()
    summary: dict[str, Any] = {"lemmas": len(theorems), "steps_walked": walked}
    summary["reached_in_n"] = dict(reached)
    summary["lemmas_every_step_reached"] = dict(whole)
    summary["first_missing_step_heads"] = dict(missing.most_common(12))
    print(json.dumps({"summary": summary}), file=sys.stderr)
    return 0


def walk(
    prover: CoqProver,
    theorem: Theorem,
    steps: list[str],
    stages: dict[str, TacticGenerator],
    args: argparse.Namespace,
) -> dict[str, Any]:
    """One lemma's walk: for each step, each stage's rank of a suggestion that takes it."""
    session = prover.open(theorem)
    node = session.root
    ranks: list[dict[str, Any]] = []
    try:
        for step in steps:
            after = session.apply(node, step, args.tactic_timeout)
            if not isinstance(after, ProofState | Proved):
                break  # the step fails alone (it needed a bullet's context, or more time)
            row: dict[str, Any] = {"step": step}
            for name, stage in stages.items():
                row[name] = None
                suggestions = stage.generate(node.text, theorem, args.probe)
                for rank, suggestion in enumerate(suggestions):
                    if " ".join(suggestion.tactic.split()) == step:
                        row[name] = rank
                        break
                    got = session.apply(node, suggestion.tactic, args.tactic_timeout)
                    if (isinstance(after, Proved) and isinstance(got, Proved)) or (
                        isinstance(after, ProofState)
                        and isinstance(got, ProofState)
                        and got.key == after.key
                    ):
                        row[name] = rank
                        break
            ranks.append(row)
            if isinstance(after, Proved):
                break
            node = after
    finally:
        session.close()
    return {"name": theorem.name, "steps": ranks}


if __name__ == "__main__":
    raise SystemExit(main())
