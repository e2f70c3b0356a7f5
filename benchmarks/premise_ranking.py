"""What premise retrieval returns on the whole traced stdlib: the top premises for
``n + m = m + n`` over ``nat``, and how many sample lemmas get an own-file premise whose
short name would not resolve at the lemma (it sits in a module the lemma is not in).

    python benchmarks/premise_ranking.py --index TRACE_DIR [--sample INDEX.jsonl]

(``--sample`` defaults to the bundled ``benchmarks/coq/stdlib-sample.index.jsonl``.)
"""

from __future__ import annotations

import argparse
import json

from proofsearch.generate.knn.corpus import load_corpus
from proofsearch.generate.knn.goals import parse_first_goal
from proofsearch.generate.knn.scope import ScopeError
from proofsearch.generate.retrieval.premises import PremiseRetriever
from proofsearch.theorem import Theorem

COMM = "n, m : nat\n============================\nn + m = m + n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", required=True)
    parser.add_argument("--sample", default="benchmarks/coq/stdlib-sample.index.jsonl")
    args = parser.parse_args()
    retriever = PremiseRetriever(load_corpus(args.index))
    top = retriever.retrieve(parse_first_goal(COMM), Theorem("new", ""), 8, applicable_only=True)
    print(json.dumps([[p.name, round(p.coverage, 3)] for p in top], indent=0))
    with open(args.sample, encoding="utf-8") as lines:
        entries = [json.loads(line) for line in lines]
    placed = unresolved = own = 0
    for entry in entries:
        statement = entry["statement"]
        conclusion = statement.split(" : ", 1)[-1].rstrip(".")
        theorem = Theorem(entry["name"], statement, extra=entry)
        try:
            found = retriever.retrieve(parse_first_goal(conclusion), theorem, 8, True)
        except ScopeError:
            continue
        placed += 1
        mine = [p for p in found if p.name != p.qualified_name]  # own-file premises
        own += bool(mine)
        short = [p for p in mine if p.name != p.qualified_name.rsplit(".", 1)[-1]]
        unresolved += bool(short)
    print(
        json.dumps(
            {
                "sample_entries_placed": placed,
                "with_own_file_premise": own,
                "own_file_premise_not_named_by_short_name": unresolved,
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
