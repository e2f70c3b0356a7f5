"""How often a traced lemma's proof is an earlier lemma's with the names edited.

    python benchmarks/knn_analogies.py TRACE_DIR [TRACE_DIR ...]

For each lemma of each module (in file order) and each earlier lemma of the same module
whose name is one short edit away (:func:`proofsearch.generate.knn.analogy.name_edit`),
the earlier proof's text with that edit made to its names
(:func:`~proofsearch.generate.knn.analogy.analogous`, a name counting as existing when
some traced premise has it as its name's last components) is compared with the lemma's
own proof. Printed per trace folder: the lemmas, those with an earlier lemma of the
family whose proof is the same text (knn's recorded step already fits), and those whose
proof only the edit gives (what the analogies add). A measure of the traces, not of a
search: whether the edited step is offered, and proves, is the search's business.
"""

from __future__ import annotations

import argparse
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


def measure(folder: str) -> tuple[int, int, int]:
    trace = TraceDir(folder)
    exists = premise_suffixes(trace).__contains__
    total = copies = edited = 0
    for lemmas in proofs(trace).values():
        for position, (_, name, proof) in enumerate(lemmas):
            total += 1
            copied = found = False
            for _, earlier, earlier_proof in lemmas[:position]:
                edit = name_edit(earlier, name)
                if edit is None:
                    continue
                if earlier_proof == proof:
                    copied = True
                elif analogous(earlier_proof, edit, exists) == proof:
                    found = True
            copies += copied
            edited += found and not copied
    return total, copies, edited


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("traces", nargs="+", help="trace folders (proofsearch trace --out)")
    args = parser.parse_args()
    print("trace | lemmas | same proof as a name-family neighbour | proof only by the edit")
    for folder in args.traces:
        total, copies, edited = measure(folder)
        share = 100 * edited / max(total, 1)
        print(f"{folder} | {total} | {copies} | {edited} ({share:.1f} %)")


if __name__ == "__main__":
    main()
