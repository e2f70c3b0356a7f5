"""Premises named after the theorem (generate/retrieval/namesake.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.generate.knn_trace import premise
from tests.generate.strength_trace import write_records
from tests.generate.template_search import search_on_and_off

from proofsearch.generate.knn.analogy import short_name
from proofsearch.generate.knn.corpus import build_corpus
from proofsearch.generate.registry import check_options
from proofsearch.generate.retrieval.templates import PremiseTemplateGenerator
from proofsearch.search.result import Status
from proofsearch.theorem import Theorem

HEADER = (
    "Lemma plus_zero_aux : forall n : nat, n + 0 = n.\n"
    "Proof. induction n; simpl; [reflexivity | rewrite IHn; reflexivity]. Qed.\n"
)
GOAL = "============================\nforall k : nat, k + 0 = k"


@pytest.fixture
def trace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """``Lib.A``: ``plus_zero_aux`` (line 1), ``plus_zero_late`` (line 60, after the
    theorems below); ``Lib.B`` (not required by ``Lib.A``): ``plus_zero_b``; ``Lib.C``
    (required): ``long_plus_zero_name``."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    names = {"Lib.A": [("plus_zero_aux", 1), ("plus_zero_late", 60)]}
    names |= {"Lib.B": [("plus_zero_b", 3)], "Lib.C": [("long_plus_zero_name", 3)]}
    yield _write(tmp_path / "trace", "forall n : nat, n + 0 = n", names)


def _write(root: Path, statement: str, names: dict[str, list[tuple[str, int]]]) -> Path:
    """A trace of lemmas (name, line) by module, all with ``statement``: ``Lib.A``
    requires ``Lib.C``, and nothing requires ``Lib.B``."""
    premises = {
        m: [premise(m, name, statement, line) for name, line in ns] for m, ns in names.items()
    }
    return write_records(root, {"Lib.C": [], "Lib.A": ["Lib.C"], "Lib.B": []}, {}, premises)


def _theorem(name: str = "plus_zero", header: str = "") -> Theorem:
    return Theorem(name, "", header, {"module": "Lib.A", "line": 20})


def _named(trace: Path, theorem: Theorem, namesakes: int = 2) -> list[str]:
    templates = PremiseTemplateGenerator(build_corpus(trace), premises=0, namesakes=namesakes)
    suggested = [s.tactic for s in templates.generate(GOAL, theorem, 64)]
    return [tactic for tactic in suggested if tactic.startswith("apply ")]


def test_the_theorem_s_own_name_finds_its_helpers_where_it_may_see_them(trace: Path) -> None:
    # Own file first, then the shorter names; nothing later in the file, nothing from an
    # unrequired module; none when turned off or when the name is too short to mean much.
    assert _named(trace, _theorem()) == ["apply plus_zero_aux", "apply Lib.C.long_plus_zero_name"]
    assert _named(trace, _theorem(), namesakes=1) == ["apply plus_zero_aux"]
    assert _named(trace, _theorem(), namesakes=0) == []
    assert _named(trace, _theorem("zer")) == []
    assert short_name(Theorem("f.v:M.plus_zero", "", extra={"qualid": "M.N.plus_z"})) == "plus_z"
    assert short_name(Theorem("f.v:M.plus_zero", "")) == "plus_zero"


def test_the_option_is_checked() -> None:
    for bad in ("yes", -1, True):
        with pytest.raises(ValueError, match="namesakes="):
            check_options("knn-portfolio", {"namesakes": bad})
        with pytest.raises(ValueError, match="siblings="):
            check_options("knn", {"siblings": bad})
    check_options("knn-portfolio", {"namesakes": 0, "siblings": 2})


def test_a_search_proves_a_lemma_through_its_namesake(
    trace: Path, no_new_coq_processes: None
) -> None:
    """No premise is retrieved (``premises=0``): the helper is found by its name alone."""
    theorem = Theorem(
        "plus_zero", "Lemma plus_zero : forall k : nat, k + 0 = k.", HEADER,
        {"module": "Lib.A", "line": 20},
    )  # fmt: skip
    proved, without = search_on_and_off(
        trace, theorem, {"namesakes": (2, 0)}, ("intros",), premises=0
    )
    assert proved.status is Status.PROVED and proved.checked
    assert proved.proof == ["apply plus_zero_aux"]
    assert without.status is not Status.PROVED


@pytest.fixture
def family(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """``Lib.A``: ``le_refl_l`` (line 1), ``gcd_mul_l`` (2), ``le_refl_rx`` (60, after
    the theorems below); ``Lib.B`` (not required): ``le_refl_b``; ``Lib.C`` (required):
    ``le_refl_c``."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    names = {"Lib.A": [("le_refl_l", 1), ("gcd_mul_l", 2), ("le_refl_rx", 60)]}
    names |= {"Lib.B": [("le_refl_b", 3)], "Lib.C": [("le_refl_c", 3)]}
    yield _write(tmp_path / "trace", "forall n : nat, n <= n", names)


def _siblings(trace: Path, siblings: int) -> list[str]:
    templates = PremiseTemplateGenerator(
        build_corpus(trace), premises=0, namesakes=0, siblings=siblings
    )
    theorem = Theorem("le_refl_r", "", "", {"module": "Lib.A", "line": 20})
    goal = "============================\nforall k : nat, k <= k"
    return [
        s.tactic for s in templates.generate(goal, theorem, 64) if s.tactic.startswith("apply ")
    ]


def test_the_theorem_s_siblings_are_named_where_it_may_see_them(family: Path) -> None:
    # One edit away (`l` → `r`): own file first; never later in the file, never an
    # unrequired module, never a name more than one short edit away.
    assert _siblings(family, 2) == ["apply le_refl_l", "apply Lib.C.le_refl_c"]
    assert _siblings(family, 1) == ["apply le_refl_l"]
    assert _siblings(family, 0) == []


def test_a_search_proves_a_lemma_through_its_sibling(
    family: Path, no_new_coq_processes: None
) -> None:
    """No premise retrieved, no namesake: the sibling is found by its name alone."""
    theorem = Theorem(
        "le_refl_r", "Lemma le_refl_r : forall k : nat, k <= k.",
        "Lemma le_refl_l : forall n : nat, n <= n.\nProof. exact le_n. Qed.\n",
        {"module": "Lib.A", "line": 20},
    )  # fmt: skip
    proved, without = search_on_and_off(
        family, theorem, {"siblings": (2, 0)}, ("intros",), premises=0, namesakes=0
    )
    assert proved.status is Status.PROVED and proved.checked
    assert proved.proof == ["apply le_refl_l"]
    assert without.status is not Status.PROVED
