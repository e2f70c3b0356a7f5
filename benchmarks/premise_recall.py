"""How often premise retrieval finds the lemma a traced proof step actually used.

For a seeded sample of traced steps of the form ``apply L`` / ``exact L`` / ``rewrite L``
(and their ``e``-, ``now``- and ssreflect forms) where ``L`` is a premise of the index,
the retriever is asked for the step's goal, as the step's lemma (so it sees only what
that lemma may see), and the rank of ``L`` among its answers is recorded.

    python benchmarks/premise_recall.py --index TRACE [--index TRACE ...] \\
        [--modules-of TRACE] [--exclude SAMPLE.jsonl ...] [--steps 2000] [--seed 1] \\
        [--ranking match|fitted]

``--modules-of``: draw the steps from this trace folder only (default: every folder of
the index). ``--exclude``: leave out the steps of the lemmas of these theorem files
(an evaluation sample, so that retrieval is never tuned on it). Prints recall at 1, 4,
8, 16 and 64 (up to ``--k``) and the median retrieval time. A step's name is matched by
its suffix: ``add_comm`` written under an ``Import`` counts any visible ``*.add_comm``.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import time
from pathlib import Path
from typing import cast

from proofsearch.generate.knn.corpus import TraceCorpus, TraceSet, load_corpus
from proofsearch.generate.knn.goals import parse_first_goal
from proofsearch.generate.knn.scope import ScopeError
from proofsearch.generate.retrieval.premises import PremiseRetriever
from proofsearch.generate.retrieval.ranking import Use
from proofsearch.theorem import Theorem
from proofsearch.trace.schema import ProofStep

#: A step that uses one named premise first: ``apply L``, ``now rewrite <- L``, ``exact: L``.
_USES = re.compile(
    r"^(?:now |by )?(?:e?apply|exact|e?rewrite(?:\s*<-|\s*->|\s*-|\s*!)?|apply:|exact:|apply/)\s*"
    r"\(?@?([A-Za-z_][\w']*(?:\.[A-Za-z_][\w']*)*)"
)
DEPTHS = (1, 4, 8, 16, 64)


def match_end(tactic: str) -> int:
    """Where the premise's name starts in a step :data:`_USES` matches."""
    match = _USES.match(tactic)
    return match.start(1) if match else 0


def _excluded(paths: list[str]) -> set[tuple[str, str]]:
    """(file, short name) of every lemma of the given theorem files."""
    out: set[tuple[str, str]] = set()
    for path in paths:
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            if line.strip():
                entry = json.loads(line)
                out.add((entry.get("file", ""), entry["name"].rsplit(":", 1)[-1]))
    return out


def named_steps(
    corpus: TraceCorpus, source_index: list[str] | str, exclude: list[str], seed: int
) -> tuple[list[str], dict[str, list[int]], dict[str, int], list[tuple[ProofStep, str]]]:
    """The index's premise names, its short-name table (every dotted suffix but the
    whole name), each premise's line, and the traced steps of ``source_index`` that name
    one premise of the index first (with that name), the lemmas of ``exclude`` left out,
    shuffled with ``seed``."""
    names = [corpus.premise_names[i] for i in range(len(corpus.premise_names))]
    by_short: dict[str, list[int]] = {}
    for number, qualified in enumerate(names):
        parts = qualified.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            by_short.setdefault(".".join(parts[cut:]), []).append(number)
    premise_line = {name: int(corpus.arrays["premise_line"][i]) for i, name in enumerate(names)}
    excluded = _excluded(exclude)
    source = TraceSet(source_index)
    found: list[tuple[ProofStep, str]] = []
    for record in source.files():
        for step in source.steps(record.module):
            match = _USES.match(step.tactic)
            if not match or not step.goals or match.group(1) not in by_short:
                continue
            short = step.lemma.removeprefix(step.module + ".")
            if (step.file, short) in excluded or step.lemma not in premise_line:
                continue
            found.append((step, match.group(1)))
    random.Random(seed).shuffle(found)
    return names, by_short, premise_line, found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", action="append", required=True)
    parser.add_argument("--modules-of", default=None)
    parser.add_argument("--exclude", action="append", default=[])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--k", type=int, default=8, help="premises asked for (templates: 8)")
    parser.add_argument(
        "--use",
        choices=["any", "apply", "rewrite"],
        default=None,
        help="rank every step for this use (default: the use of the step's tactic)",
    )
    parser.add_argument(
        "--ranking", choices=["match", "fitted"], default="match", help="the retriever's order"
    )
    parser.add_argument("--misses", type=int, default=0, help="print this many misses")
    args = parser.parse_args()
    corpus = load_corpus(args.index)
    retriever = PremiseRetriever(corpus, args.ranking)
    names, by_short, premise_line, candidates = named_steps(
        corpus, args.modules_of or args.index, args.exclude, args.seed
    )
    found_at: list[int | None] = []
    kinds: list[str] = []
    seconds: list[float] = []
    misses: list[str] = []
    for step, used in candidates:
        if len(found_at) == args.steps:
            break
        line = premise_line[step.lemma]
        theorem = Theorem(step.lemma, "", extra={"module": step.module, "line": line})
        goal = parse_first_goal(step.goals[0].render())
        targets = {names[i] for i in by_short[used]}
        kind: Use = "rewrite" if "rewrite" in step.tactic[: match_end(step.tactic)] else "apply"
        use: Use = cast(Use, args.use) if args.use else kind
        try:
            start = time.perf_counter()
            ranked = retriever.retrieve(goal, theorem, args.k, True, use)
            seconds.append(time.perf_counter() - start)
        except ScopeError:
            continue
        visible = retriever.scopes.get(theorem.name, theorem.extra)[1]
        if visible is not None and not any(visible[i] for i in by_short[used]):
            continue  # a local lemma of a section, or a hypothesis named like a premise
        rank = next((r for r, p in enumerate(ranked) if p.qualified_name in targets), None)
        found_at.append(rank)
        kinds.append(kind)
        if rank is None and len(misses) < args.misses:
            top = ", ".join(p.name for p in ranked[:4])
            misses.append(f"{step.lemma}: {step.tactic!r} | {goal.conclusion[:80]} | {top}")
    for group in ("all", "apply", "rewrite"):
        ranks = [r for r, k in zip(found_at, kinds, strict=True) if group in ("all", k)]
        report = {
            "steps": group,
            "n": len(ranks),
            **{
                f"@{depth}": round(
                    sum(1 for r in ranks if r is not None and r < depth) / max(len(ranks), 1), 3
                )
                for depth in DEPTHS
                if depth <= args.k
            },
        }
        print(json.dumps(report))
    if seconds:
        print(json.dumps({"median_ms": round(1000 * statistics.median(seconds), 2)}))
    for miss in misses:
        print(miss)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
