"""The ``knn`` generator, premise retrieval and their no-leak rule, on a small trace
written as records (see ``knn_trace.py``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.generate.knn_trace import FLIP, goal, write_trace

from proofsearch.generate.knn.corpus import build_corpus, load_corpus
from proofsearch.generate.knn.generator import KnnGenerator
from proofsearch.generate.knn.goals import parse_first_goal
from proofsearch.generate.knn.scope import ScopeError
from proofsearch.generate.registry import make_generator
from proofsearch.generate.retrieval.premises import PremiseRetriever
from proofsearch.generate.retrieval.templates import PremiseTemplateGenerator
from proofsearch.theorem import Theorem

NEW = Theorem("new", "Lemma new : True.")


@pytest.fixture
def trace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    yield write_trace(tmp_path / "trace")


def tactics(
    generator: KnnGenerator | PremiseTemplateGenerator, goals: str, theorem: Theorem
) -> list[str]:
    return [s.tactic for s in generator.generate(goals, theorem, 50)]


def test_identical_state_gets_the_recorded_tactic_first(trace: Path) -> None:
    knn = KnnGenerator(build_corpus(trace))
    first = knn.generate(FLIP.render(), NEW, 10)[0]
    assert first.tactic == "symmetry; exact Hnm"
    assert first.logprob == pytest.approx(0.0, abs=1e-6)
    suggestions = knn.generate(FLIP.render(), NEW, 10)
    assert all(s.logprob <= 0 for s in suggestions)
    assert len({s.tactic for s in suggestions}) == len(suggestions)


def test_renamed_hypotheses_get_adapted_names(trace: Path) -> None:
    knn = KnnGenerator(build_corpus(trace))
    renamed = goal("b = a", ("a, b", "nat"), ("E", "a = b")).render()
    assert tactics(knn, renamed, NEW)[0] == "symmetry; exact E"
    # A variable of the same type is mapped too (induction n -> induction k).
    assert "induction k" in tactics(knn, goal("k + 0 = k", ("k", "nat")).render(), NEW)
    # Two equations with the same shape and one recorded: both are offered.
    two = goal("b = a", ("a, b", "nat"), ("E1", "a = b"), ("E2", "a = b")).render()
    assert tactics(knn, two, NEW)[:2] == ["symmetry; exact E1", "symmetry; exact E2"]
    # No equation at all: the suggestion would name a missing hypothesis, so it is dropped.
    assert not any("Hnm" in t for t in tactics(knn, goal("b = a", ("a, b", "nat")).render(), NEW))


def test_names_left_as_recorded_when_adaptation_is_off(trace: Path) -> None:
    """``adapt_names=False`` (issue 19's ablation) gives the recorded text, as before the
    fix: the names of the recorded goal, not the current one's."""
    knn = KnnGenerator(build_corpus(trace), adapt_names=False)
    renamed = goal("b = a", ("a, b", "nat"), ("E", "a = b")).render()
    assert tactics(knn, renamed, NEW)[0] == "symmetry; exact Hnm"
    assert "induction n" in tactics(knn, goal("k + 0 = k", ("k", "nat")).render(), NEW)


def test_live_text_and_trace_rendering_are_parsed_alike() -> None:
    text = (
        "n, m : nat\nHnm : n = m\nx := 3 : nat\n============================\nm = n\n\n"
        "n : nat\n============================\nTrue"
    )
    parsed = parse_first_goal(text)
    assert parsed.hypothesis_names == ("n", "m", "Hnm", "x")
    assert parsed.hypotheses[2].type == "nat" and parsed.hypotheses[2].body == "3"
    assert parsed.conclusion == "m = n"
    assert parse_first_goal(FLIP.render()) == parse_first_goal(FLIP.render() + "\n\n⊢ other")


SECRET_GOAL = goal("secret_pred k", ("k", "nat")).render()


def test_no_leak_own_proof_later_lemmas_and_unrelated_files(trace: Path) -> None:
    """A lemma of Lib.B at line 30 sees Lib.A and what Lib.B declared before line 30."""
    knn = make_generator("knn", {"index": str(trace)})
    at_secret = Theorem("secret", "Lemma secret : True.", extra={"module": "Lib.B", "line": 30})
    seen = tactics(knn, SECRET_GOAL, at_secret)  # type: ignore[arg-type]
    assert "unfold double" in seen and "intros n" in seen  # earlier and deps
    for leaked in (
        "secret_tactic",
        "later_tactic",
        "other_tactic",
        "Lib.B.secret",
        "secret",
        "later",
    ):
        assert not any(leaked in t.split() or t.endswith(leaked) for t in seen), (leaked, seen)
    # The same lemma placed after them sees its own file's earlier proof and premise.
    after = Theorem("after", "Lemma after : True.", extra={"module": "Lib.B", "line": 45})
    later = tactics(knn, SECRET_GOAL, after)  # type: ignore[arg-type]
    assert later[0] == "apply secret_tactic"
    assert "apply secret" in later  # own-file premise, by its short name
    assert not any("later_tactic" in t or "other_tactic" in t for t in later)
    # A new theorem (no module/file) sees everything, the unrelated file included.
    assert "apply other_tactic" in tactics(knn, SECRET_GOAL, NEW)  # type: ignore[arg-type]


def test_retrieval_sees_only_accessible_premises(trace: Path) -> None:
    retriever = PremiseRetriever(build_corpus(trace))
    in_b = Theorem("b", "Lemma b : True.", extra={"file": "B.v", "line": 100})
    names = [p.qualified_name for p in retriever.retrieve(parse_first_goal(SECRET_GOAL), in_b, 20)]
    assert "Lib.B.secret" in names and "Lib.A.zero_r" in names
    assert "Lib.Other.other_secret" not in names
    in_a = Theorem("a", "Lemma a : True.", extra={"module": "Lib.A", "line": 15})
    names = [p.qualified_name for p in retriever.retrieve(parse_first_goal(SECRET_GOAL), in_a, 20)]
    assert names and set(names) <= {"Lib.A.flip", "Lib.A.double"}
    # The best match for a goal is ranked first, and dependency premises keep full names.
    best = retriever.retrieve(parse_first_goal(goal("n + 0 = n", ("n", "nat")).render()), in_b, 3)
    assert best[0].qualified_name == "Lib.A.zero_r" and best[0].name == "Lib.A.zero_r"
    templates = PremiseTemplateGenerator(build_corpus(trace))
    made = tactics(templates, SECRET_GOAL, in_b)
    assert "apply secret" in made and "rewrite <- secret" in made
    assert any(t.startswith("eauto using ") for t in made)
    assert not any("other_secret" in t for t in made)
    assert not any("Lib.A.double" in t for t in made)  # a Definition is not applied
    # With ssreflect loaded, its forms stand in for the Coq forms they do the same as.
    in_b_ssr = Theorem(
        "b", "Lemma b : True.", header="From Coq Require Import ssreflect.\n", extra=in_b.extra
    )
    made = tactics(templates, SECRET_GOAL, in_b_ssr)
    assert "rewrite -secret" in made and "apply: secret" in made and "apply secret" in made
    assert "rewrite <- secret" not in made and "eapply secret" not in made


def test_scope_errors_name_the_field(trace: Path) -> None:
    knn = KnnGenerator(build_corpus(trace))
    with pytest.raises(ScopeError, match="field 'module'"):
        knn.generate(SECRET_GOAL, Theorem("x", "L", extra={"module": "Lib.Nope"}), 5)
    with pytest.raises(ScopeError, match="field 'file'"):
        knn.generate(SECRET_GOAL, Theorem("x", "L", extra={"file": "Nope.v", "line": 3}), 5)
    with pytest.raises(ScopeError, match="field 'line'"):
        knn.generate(SECRET_GOAL, Theorem("x", "L", extra={"module": "Lib.A", "line": "3"}), 5)


def test_online_learning_serves_later_theorems(trace: Path) -> None:
    knn = KnnGenerator(build_corpus(trace))
    state = goal("weird_pred x y", ("x, y", "nat"), ("Hxy", "weird_rel x y")).render()
    assert "apply weird_lemma" not in tactics(knn, state, NEW)
    first = Theorem("first", "Lemma first : True.", extra={"module": "Lib.B", "line": 60})
    knn.learn(first, [(state, "apply weird_lemma.")])
    renamed = goal("weird_pred a b", ("a, b", "nat"), ("H", "weird_rel a b")).render()
    later = Theorem("later", "Lemma later : True.", extra={"module": "Lib.B", "line": 70})
    assert tactics(knn, renamed, later)[0] == "apply weird_lemma"
    # Learned steps obey the same visibility: not for a lemma before it, nor elsewhere.
    earlier = Theorem("earlier", "Lemma e : True.", extra={"module": "Lib.B", "line": 55})
    elsewhere = Theorem("o", "Lemma o : True.", extra={"module": "Lib.Other", "line": 90})
    assert "apply weird_lemma" not in tactics(knn, renamed, earlier)
    assert "apply weird_lemma" not in tactics(knn, renamed, elsewhere)


def test_corpus_cache_round_trips(trace: Path) -> None:
    built = load_corpus(trace)
    assert load_corpus(trace) is built  # once per process
    from proofsearch.generate.knn import corpus as module

    module._PRELOADED.clear()
    cached = load_corpus(trace)
    assert cached is not built and set(cached.arrays) == set(built.arrays)
    knn = KnnGenerator(cached)
    assert tactics(knn, FLIP.render(), NEW)[0] == "symmetry; exact Hnm"


def test_capped_first_pass_still_scores_candidates_exactly(trace: Path) -> None:
    corpus = build_corpus(trace)
    full = KnnGenerator(corpus).generate(FLIP.render(), NEW, 10)
    capped = KnnGenerator(corpus, max_postings=1).generate(FLIP.render(), NEW, 10)
    assert capped[0] == full[0] and capped[0].logprob == pytest.approx(0.0, abs=1e-6)
    exact = {s.tactic: s.logprob for s in full}
    assert all(s.logprob == pytest.approx(exact[s.tactic], abs=1e-6) for s in capped)


def test_the_hint_lists_length_is_an_option(trace: Path) -> None:
    """``hint_premises``: how many retrieved premises ``eauto using …``, ``auto using …``
    and ``firstorder using …`` take (4 by default; 0: no such template), for the issue's
    ablation of the automation with retrieved premises."""
    from proofsearch.generate.registry import check_options

    in_b = Theorem("b", "Lemma b : True.", extra={"file": "B.v", "line": 100})

    def hint_lists(**options: object) -> list[list[str]]:
        generator = make_generator("premises", {"index": str(trace), **options})
        made = tactics(generator, SECRET_GOAL, in_b)  # type: ignore[arg-type]
        return [t.split(" using ", 1)[1].split(", ") for t in made if " using " in t]

    assert len(hint_lists()) == 3 and all(1 <= len(hints) <= 4 for hints in hint_lists())
    assert hint_lists(hint_premises=0) == []
    assert [len(hints) for hints in hint_lists(hint_premises=1)] == [1, 1, 1]
    for bad in (-1, "two", True):
        with pytest.raises(ValueError, match="hint_premises="):
            check_options("knn-portfolio", {"hint_premises": bad})
    check_options("knn", {"hint_premises": 0})
