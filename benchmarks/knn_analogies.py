"""How often a traced lemma's proof is an earlier lemma's with the names edited.

    python benchmarks/knn_analogies.py TRACE_DIR [TRACE_DIR ...]

For each lemma of each module (in file order) and each earlier lemma of the same module
whose name is one short edit away (:func:`proofsearch.generate.knn.analogy.name_edit`),
the earlier proof's text with that edit made to its names
(:func:`~proofsearch.generate.knn.analogy.analogous`, a name counting as existing when
some traced premise has it as its name's last components) is compared with the lemma's
own proof. Printed per trace folder: the lemmas, those with an earlier lemma of the
family whose proof is the same text (knn's recorded step already fits), and those whose
proof only the edit gives (what the analogies add); then the lemmas whose proof names an
earlier lemma of the family (a *sibling*, retrieval/namesake.py's option ``siblings``),
and those where it is the nearest (the smallest edit, then the latest). A measure of the
traces, not of a search: whether the edited step is offered, and proves, is the
search's business.
"""

from __future__ import annotations

import argparse
import re
from collections import defaultdict

from proofsearch.generate.knn.analogy import analogous, name_edit
from proofsearch.trace.schema import TraceDir


def proofs(trace: TraceDir) -> dict[str, list[tuple[int, str, str]]]:
    """Module → its lemmas in file order: (offset, short name, the proof's sentences)."""
    steps: dict[tuple[str, str, int], list[str]] = defaultdict(list)
    for record in trace.files():
        for step in trace.steps(record.module):
            steps[step.module, step.lemma, step.lemma_offset].append(step.tactic)
    by_module: dict[str, list[tuple[int, str, str]]] = defaultdict(list)
    for (module, lemma, offset), tactics in steps.items():
        by_module[module].append((offset, lemma.rsplit(".", 1)[-1], " ".join(tactics)))
    for lemmas in by_module.values():
        lemmas.sort()
    return by_module


def premise_suffixes(trace: TraceDir) -> set[str]:
    names: set[str] = set()
    for record in trace.files():
        for premise in trace.premises(record.module):
            parts = premise.name.split(".")
            names.update(".".join(parts[cut:]) for cut in range(len(parts)))
    return names


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_']*")


def measure(folder: str) -> tuple[int, int, int, int, int]:
    trace = TraceDir(folder)
    exists = premise_suffixes(trace).__contains__
    total = copies = edited = siblings = nearest = 0
    for lemmas in proofs(trace).values():
        for position, (_, name, proof) in enumerate(lemmas):
            total += 1
            copied = found = False
            family: list[tuple[int, int, str]] = []
            for order, (_, earlier, earlier_proof) in enumerate(lemmas[:position]):
                edit = name_edit(earlier, name)
                if edit is None:
                    continue
                family.append((len(edit.old) + len(edit.new), -order, earlier))
                if earlier_proof == proof:
                    copied = True
                elif analogous(earlier_proof, edit, exists) == proof:
                    found = True
            copies += copied
            edited += found and not copied
            named = set(_NAME.findall(proof))
            used = [earlier in named for _, _, earlier in sorted(family)]
            siblings += any(used)
            nearest += bool(used) and used[0]
    return total, copies, edited, siblings, nearest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("traces", nargs="+", help="trace folders (proofsearch trace --out)")
    args = parser.parse_args()
    print(
        "trace | lemmas | same proof as a name-family neighbour | proof only by the edit"
        " | proof names a sibling | the nearest sibling"
    )
    for folder in args.traces:
        total, copies, edited, siblings, nearest = measure(folder)
        share = 100 * edited / max(total, 1)
        print(f"{folder} | {total} | {copies} | {edited} ({share:.1f} %) | {siblings} | {nearest}")


if __name__ == "__main__":
    main()
