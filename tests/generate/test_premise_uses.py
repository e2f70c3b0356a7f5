"""Premise use counts: what earlier proofs used ranks higher, and a theorem never counts
a use it may not see (its own proof, a later lemma, a file it does not require)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from tests.generate.knn_trace import goal, premise, step
from tests.generate.strength_trace import write_records

from proofsearch.generate.knn.corpus import build_corpus
from proofsearch.generate.knn.goals import parse_first_goal
from proofsearch.generate.knn.premise_uses import PremiseUses, suffix_table
from proofsearch.generate.retrieval.premises import PremiseRetriever
from proofsearch.theorem import Theorem

#: Two lemmas that match an ``_ <= _`` goal equally well (the same statement's shape).
LIB = "Lib.Order"
LEMMAS = {
    "le_left": "forall n m : nat, n <= m -> n <= m + 1",
    "le_right": "forall n m : nat, n <= m -> n <= 1 + m",
}
STATE = goal("a <= b + 1", ("a, b", "nat"))


def _trace(root: Path, user_module: str = "Lib.User") -> Path:
    """``le_right`` is used by three proofs of ``Lib.User`` (lines 11, 21, 31) and by the
    later file ``Lib.Later``; ``le_left`` by nobody."""
    used = [
        step(user_module, f"u{i}", 10 * i, 0, STATE, "apply le_right; auto.") for i in (1, 2, 3)
    ]
    later = [step("Lib.Later", "z", 5, 0, STATE, "apply Order.le_right.")]
    premises = [premise(LIB, k, v, 10 + i) for i, (k, v) in enumerate(LEMMAS.items())]
    return write_records(
        root,
        {LIB: [], user_module: [LIB], "Lib.Later": [user_module]},
        {user_module: used, "Lib.Later": later},
        {LIB: premises},
    )


def _order(retriever: PremiseRetriever, theorem: Theorem) -> list[str]:
    state = parse_first_goal(STATE.render())
    return [p.name.rsplit(".", 1)[-1] for p in retriever.retrieve(state, theorem, 2, use="apply")]


def test_a_premise_earlier_proofs_used_ranks_first(tmp_path: Path) -> None:
    retriever = PremiseRetriever(build_corpus(_trace(tmp_path / "t")), "fitted")
    # A new theorem (no module) sees every use: ``le_right`` wins although ``le_left``
    # matches the goal's ``+ 1`` as well.
    assert _order(retriever, Theorem("new", "")) == ["le_right", "le_left"]
    # Before any use (line 5 of the user file) they tie, and the shorter name decides.
    early = Theorem("e", "", extra={"module": "Lib.User", "line": 5})
    assert _order(retriever, early) == ["le_left", "le_right"]


def test_counts_see_only_earlier_proofs_of_the_file_and_required_files(tmp_path: Path) -> None:
    corpus = build_corpus(_trace(tmp_path / "t"))
    uses = PremiseUses(corpus.table, corpus.arrays)
    names = [corpus.premise_names[i] for i in range(len(corpus.premise_names))]
    right = names.index(f"{LIB}.le_right")
    left = names.index(f"{LIB}.le_left")
    table = corpus.table

    def seen(module: str, line: int) -> list[float]:
        scope = table.scope("x", {"module": module, "line": line})
        return uses.visible_counts([right, left], scope).tolist()

    assert seen("Lib.User", 5) == [0, 0]  # nothing above it
    assert seen("Lib.User", 25) == [2, 0]  # the proofs at lines 11 and 21, not 31
    assert seen("Lib.User", 1000) == [3, 0]
    assert seen("Lib.Later", 1) == [3, 0]  # the required file's three, not its own later one
    assert seen("Lib.Later", 100) == [4, 0]
    assert seen(LIB, 1000) == [0, 0]  # the library never sees its users
    assert uses.visible_counts([right, left], None).tolist() == [4, 0]


def test_a_name_read_many_ways_is_not_counted() -> None:
    names = [f"M{i}.x" for i in range(10)] + ["A.B.only"]
    table = suffix_table(names)
    assert table["x"] == list(range(10))
    assert table["B.only"] == table["only"] == table["A.B.only"] == [10]
    from proofsearch.generate.knn.premise_uses import use_arrays

    arrays = use_arrays(
        names,
        ["apply x.", "rewrite B.only, only."],
        np.array([0, 1]),
        np.array([0, 0]),
        np.array([3, 4]),
    )
    counts = np.diff(arrays["premise_uses.indptr"])
    assert counts.tolist() == [0] * 10 + [1]  # ``x`` fits 10 premises; ``only`` once a step


def test_the_match_ranking_ignores_uses(tmp_path: Path) -> None:
    """``premise_ranking=match`` (the default) keeps the hand-fixed order: no use counts."""
    corpus = build_corpus(_trace(tmp_path / "t"))
    assert _order(PremiseRetriever(corpus), Theorem("new", "")) == [
        "le_left",
        "le_right",
    ]
    try:
        PremiseRetriever(corpus, "learned")
    except ValueError as error:
        assert "fitted, match" in str(error)
    else:
        raise AssertionError("an unknown ranking was accepted")
