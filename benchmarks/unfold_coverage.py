"""How often the default merged generator offers the step a traced proof took, with and
without ``unfold D`` among the premise templates (generate/retrieval/unfold.py).

Two figures on one trace, each state asked as its own lemma would see the index:
traced steps that start ``unfold X`` (is ``unfold X`` among the 64 offered?), and random
traced steps (is the exact step among the 64, and among the first 8?).

    python benchmarks/unfold_coverage.py --index TRACE [--unfold-steps 400] [--steps 1500]
"""

from __future__ import annotations

import argparse
import json
import random
import re

from proofsearch.generate.base import TacticGenerator
from proofsearch.generate.knn.corpus import TraceSet
from proofsearch.generate.registry import make_generator
from proofsearch.theorem import Theorem
from proofsearch.trace.schema import ProofStep

_UNFOLD = re.compile(r"^unfold\s+([\w'.]*[\w'])")


def _asked(step: ProofStep) -> tuple[str, Theorem]:
    text = "\n\n".join(goal.render() for goal in step.goals)
    line = step.line - step.index - 1
    return text, Theorem(step.lemma, "", extra={"module": step.module, "line": line})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", required=True)
    parser.add_argument("--unfold-steps", type=int, default=400)
    parser.add_argument("--steps", type=int, default=1500)
    args = parser.parse_args()
    trace = TraceSet(args.index)
    steps = [s for r in trace.files() for s in trace.steps(r.module) if s.goals]
    unfolds = [s for s in steps if _UNFOLD.match(s.tactic)]
    print(json.dumps({"traced_steps": len(steps), "unfold_steps": len(unfolds)}))
    generators: dict[str, TacticGenerator] = {
        mode: make_generator(
            "knn-portfolio",
            {"index": args.index, "schedule": "knn-portfolio", "unfold": mode == "on"},
        )
        for mode in ("off", "on")
    }
    random.Random(1).shuffle(unfolds)
    random.Random(2).shuffle(steps)
    for mode, generator in generators.items():
        offered = 0
        for step in unfolds[: args.unfold_steps]:
            match = _UNFOLD.match(step.tactic)
            assert match is not None
            wanted = re.compile(r"^unfold\s+" + re.escape(match.group(1)) + r"\b")
            text, theorem = _asked(step)
            suggested = generator.generate(text, theorem, 64)
            offered += any(wanted.match(s.tactic) for s in suggested)
        in_64 = in_8 = 0
        for step in steps[: args.steps]:
            text, theorem = _asked(step)
            offers = generator.generate(text, theorem, 64)
            tactics = [s.tactic.strip().rstrip(".") for s in offers]
            wanted_step = step.tactic.strip().rstrip(".")
            if wanted_step in tactics:
                in_64 += 1
                in_8 += tactics.index(wanted_step) < 8
        print(
            json.dumps(
                {
                    "unfold": mode,
                    "unfold_steps_offered": f"{offered}/{min(args.unfold_steps, len(unfolds))}",
                    "steps_in_64": f"{in_64}/{min(args.steps, len(steps))}",
                    "steps_in_8": in_8,
                }
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
