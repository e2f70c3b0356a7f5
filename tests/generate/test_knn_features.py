"""knn's features tell types apart (``+`` on ``nat`` vs ``Z``) and ``top:`` is the
conclusion's head symbol."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.generate.knn_trace import goal, step
from tests.generate.strength_trace import write_records

from proofsearch.generate.knn.corpus import build_corpus, cache_key, load_corpus
from proofsearch.generate.knn.features import goal_features, untyped
from proofsearch.generate.knn.generator import KnnGenerator
from proofsearch.generate.knn.goals import parse_first_goal
from proofsearch.theorem import Theorem

MIXED = (("n, m", "nat"), ("x, y", "Z"))


def features(text: str) -> dict[str, float]:
    return goal_features(parse_first_goal(text))


def test_the_same_printed_operator_on_two_types_is_two_features() -> None:
    on_nat = features(goal("n + m = m + n", ("n, m", "nat")).render())
    on_z = features(goal("x + y = y + x", ("x, y", "Z")).render())
    assert "c:+@nat" in on_nat and "c:+@Z" in on_z and "c:+@Z" not in on_nat
    # Binder annotations, scope delimiters and qualified functions say the type too.
    assert "c:+@Z" in features("forall a b : Z, a + b = b + a")
    assert "c:+@positive" in features("(p + q)%positive = (q + p)%positive")
    assert "c:*@Z" in features("Z.abs a * b = 0")


def test_top_is_the_head_symbol() -> None:
    def top(text: str) -> set[str]:
        return {f for f in features(text) if f.startswith("top:")}

    assert top(goal("a + b = c", ("a, b, c", "nat")).render()) == {"top:=", "top:=@nat"}
    assert top("a = b -> c = d") == {"top:->"}
    assert top("forall n : nat, n + 0 = n") == {"top:forall"}
    assert top("le (S n) m") == {"top:le"}
    assert top("~ a /\\ b") == {"top:/\\"}


def test_knn_prefers_the_state_of_the_same_type(tmp_path: Path) -> None:
    steps = [
        step("Lib.A", "z", 10, 0, goal("x + y = y + x", *MIXED), "apply Z.add_comm."),
        step("Lib.A", "n", 20, 0, goal("n + m = m + n", *MIXED), "apply Nat.add_comm."),
    ]
    corpus = build_corpus(write_records(tmp_path / "t", {"Lib.A": []}, {"Lib.A": steps}, {}))
    query = goal("a + b = b + a", ("a, b", "Z"), ("k", "nat")).render()
    found = KnnGenerator(corpus).generate(query, Theorem("t", "Lemma t : True."), 5)
    scores = {s.tactic: s.logprob for s in found}
    assert found[0].tactic == "apply Z.add_comm"
    assert scores["apply Z.add_comm"] > scores["apply Nat.add_comm"]


def test_untyped_keeps_every_feature_but_the_typed_ones() -> None:
    assert untyped({"c:+@nat": 1.0, "c:$@Z": 1.0, "top:=@nat": 1.0, "c:@eq": 1.0, "c:+": 1.0}) == {
        "c:@eq": 1.0,
        "c:+": 1.0,
    }


def test_an_untyped_corpus_loses_the_type_and_caches_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``typed_features=False`` (issue 19's ablation of item 2): no typed feature in the
    index or the query, so the ``Z`` goal no longer prefers the ``Z`` state: the ``nat``
    state, whose local names sit where the goal's do, comes first. The untyped corpus
    has its own cache key and its own in-process copy."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    steps = [
        step("Lib.A", "z", 10, 0, goal("x + y = y + x", *MIXED), "apply Z.add_comm."),
        step("Lib.A", "n", 20, 0, goal("n + m = m + n", *MIXED), "apply Nat.add_comm."),
    ]
    trace = write_records(tmp_path / "t", {"Lib.A": []}, {"Lib.A": steps}, {})
    plain = load_corpus(str(trace), typed_features=False)
    assert not plain.typed_features and load_corpus(str(trace)).typed_features
    assert load_corpus(str(trace), typed_features=False) is plain
    assert cache_key(str(trace)) != cache_key(str(trace), typed_features=False)
    typed_keys = set(build_corpus(trace).arrays["states.forward_keys"].tolist())
    assert set(plain.arrays["states.forward_keys"].tolist()) < typed_keys
    query = goal("a + b = b + a", ("a, b", "Z"), ("k", "nat")).render()
    found = KnnGenerator(plain).generate(query, Theorem("t", "Lemma t : True."), 5)
    assert found[0].tactic == "apply Nat.add_comm"
