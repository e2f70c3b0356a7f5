"""How many ``knn`` suggestions name a hypothesis the goal does not have.

    python benchmarks/knn_names.py --index TRACE_DIR [--states 300] [--n 64] [--seed 1]

Draws recorded proof states at random (the same way as ``knn_speed.py``: each theorem
placed at its own module and line, so it never sees its own proof), asks ``knn`` alone
(no premise templates) for ``--n`` tactics, and counts the suggestions that contain a
name which was a hypothesis of a recorded state with that very tactic text and is not a
hypothesis of the goal at hand: a dangling hypothesis name, a tactic that can only fail.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import defaultdict

from knn_speed import sample_states
from proofsearch.generate.knn.corpus import load_corpus
from proofsearch.generate.knn.generator import KnnGenerator
from proofsearch.generate.knn.goals import parse_first_goal
from proofsearch.trace.schema import TraceDir

_IDENTIFIER = re.compile(r"(?<![\w'.])[^\W\d][\w']*(?![\w'.])")


def recorded_names(knn: KnnGenerator) -> dict[str, set[str]]:
    """Tactic text → the hypothesis names recorded states with that tactic used."""
    names: dict[str, set[str]] = defaultdict(set)
    table, tactics = knn.name_table, knn.tactic_table
    for state in range(len(table)):
        record = table[state]
        if record:
            tactic = tactics[int(knn.state_tactic[state])]
            names[tactic].update(line.split("\t", 1)[0] for line in record.splitlines())
    return names


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", required=True)
    parser.add_argument("--states", type=int, default=300)
    parser.add_argument("--n", type=int, default=64)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    knn = KnnGenerator(load_corpus(args.index))
    names = recorded_names(knn)
    checked = dangling = 0
    for text, theorem in sample_states(TraceDir(args.index), args.states, args.seed):
        present = set(parse_first_goal(text).hypothesis_names)
        for suggestion in knn.generate(text, theorem, args.n):
            used = set(_IDENTIFIER.findall(suggestion.tactic))
            checked += 1
            dangling += bool((used & names.get(suggestion.tactic, set())) - present)
    share = dangling / max(checked, 1)
    print(json.dumps({"suggestions": checked, "dangling": dangling, "share": round(share, 4)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
