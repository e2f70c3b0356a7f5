"""How many ``knn`` suggestions name a hypothesis the goal does not have.

    python benchmarks/knn_names.py --index TRACE_DIR [--states 300] [--n 64] [--seed 1]
        [--rename]

Draws recorded proof states at random (the same way as ``knn_speed.py``: each theorem
placed at its own module and line, so it never sees its own proof), asks ``knn`` alone
(no premise templates) for ``--n`` tactics, and counts the suggestions that contain a
name which was a hypothesis of a recorded state with that very tactic text and is not a
hypothesis of the goal at hand: a dangling hypothesis name, a tactic that can only fail.
Also counted: suggestions that introduce a name the goal already has (``move=> n`` where
``n`` exists: "n already used"), and states whose written step is among the suggestions.

``--rename`` gives each state's hypotheses whose names start with ``H`` the names a plain
``intros`` would (``H``, ``H0``, ``H1`` … in order) and the written step the same
renaming: the states a search reaches, where the library's names (``Hx``, ``Hk``) are
not there to be left alone.
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
from proofsearch.generate.knn.intro_patterns import fresh_intros
from proofsearch.generate.knn.parts import clean_tactic
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


def renamed(text: str, step: str | None) -> tuple[str, str | None]:
    """``text`` and ``step`` with the first goal's ``H…`` hypotheses named as ``intros``
    would name them (``H``, ``H0``, ``H1`` …), where that changes them."""
    own = [name for name in parse_first_goal(text).hypothesis_names if name.startswith("H")]
    # Every ``H…`` name is replaced at once, so the new names cannot clash with them.
    mapping = dict(zip(own, ["H", *(f"H{i}" for i in range(len(own)))], strict=False))
    if all(old == new for old, new in mapping.items()):
        return text, step

    def swap(part: str) -> str:
        return _IDENTIFIER.sub(lambda m: mapping.get(m.group(0), m.group(0)), part)

    return swap(text), None if step is None else swap(step)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", required=True)
    parser.add_argument("--states", type=int, default=300)
    parser.add_argument("--n", type=int, default=64)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rename", action="store_true")
    args = parser.parse_args()
    knn = KnnGenerator(load_corpus(args.index))
    names = recorded_names(knn)
    trace = TraceDir(args.index)
    written = {
        ("\n\n".join(g.render() for g in step.goals), step.lemma): clean_tactic(step.tactic)
        for record in trace.files()
        for step in trace.steps(record.module)
        if step.goals
    }
    checked = dangling = clashing = found = 0
    states = sample_states(trace, args.states, args.seed)
    for recorded, theorem in states:
        step = written.get((recorded, theorem.name))
        text = recorded
        if args.rename:
            text, step = renamed(recorded, step)
        present = set(parse_first_goal(text).hypothesis_names)
        suggested = [s.tactic for s in knn.generate(text, theorem, args.n)]
        found += step in suggested
        for tactic in suggested:
            used = set(_IDENTIFIER.findall(tactic))
            checked += 1
            dangling += bool((used & names.get(tactic, set())) - present)
            clashing += fresh_intros(tactic, present) != tactic
    share = dangling / max(checked, 1)
    figures = {"suggestions": checked, "dangling": dangling, "share": round(share, 4)}
    figures |= {"introduce_a_name_the_goal_has": clashing, "states": len(states)}
    print(json.dumps({**figures, "written_step_among_suggestions": found}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
