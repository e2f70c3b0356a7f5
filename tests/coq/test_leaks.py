"""A header suffix (CoqHammer's import) may not lend a proof the libraries it loads."""

from __future__ import annotations

import shutil

import pytest

from proofsearch.env.coq.backend import CoqProver
from proofsearch.env.coq.checker import check_proof
from proofsearch.env.coq.leaks import added_libraries, leaked, located_paths
from proofsearch.env.coq.version import hammer_installed
from proofsearch.generate.base import Suggestion, TacticGenerator
from proofsearch.generate.hammer import HAMMER_TACTICS_IMPORT
from proofsearch.generate.schedule import ScheduledGenerator, Stage
from proofsearch.search import BestFirstSearchProver, SearchConfig, Status
from proofsearch.theorem import Theorem

requires_hammer = pytest.mark.skipif(
    shutil.which("coqc") is None or not hammer_installed(),
    reason="CoqHammer (Debian libcoq-hammer) is not installed",
)


def test_locate_answers_are_read_in_order() -> None:
    printed = (
        "Constant mathcomp.ssreflect.eqtype.Equality.sort\n"
        "  (shorter name to refer to it in current context is eqtype.Equality.sort)\n"
        "Module LeakCheck\n"
        "No object of basename foo\n"
        "Module LeakCheck\n"
        "Inductive Coq.Init.Datatypes.nat\nConstant Other.nat\n"
        "Module LeakCheck\n"
    )
    assert located_paths(printed, 3, "LeakCheck") == [
        "mathcomp.ssreflect.eqtype.Equality.sort",
        "",
        "Coq.Init.Datatypes.nat",
    ]
    with pytest.raises(ValueError, match="2 names"):
        located_paths("Module LeakCheck\n", 2, "LeakCheck")


def test_the_suffix_adds_what_the_second_list_has_beyond_the_first() -> None:
    printed = (
        "Loaded library files: \n  Coq.Init.Prelude\n  Coq.Bool.Bool\n"
        "Loaded library files: \n  Coq.Init.Prelude\n  Coq.Bool.Bool\n  Coq.micromega.Lia\n"
        "  Hammer.Tactics.Tactics\nother output\n"
        # What a tactic prints later never counts.
        "Loaded library files: \n  Evil.Library\n"
    )
    assert added_libraries(printed) == {"Coq.micromega.Lia"}
    with pytest.raises(ValueError, match="two"):
        added_libraries("Loaded library files: \n  Coq.Init.Prelude\n")
    # A library's name is a prefix of a path only up to a dot: Bool is not BoolOrder.
    paths = ["Coq.Bool.Bool.negb_involutive", "Coq.Bool.BoolOrder.le_refl", "Coq.Init.Logic.eq"]
    assert leaked(["a", "b", "c"], paths, {"Coq.Bool.Bool"}) == ["a"]


@requires_hammer
def test_a_proof_through_a_library_only_the_suffix_loads_is_refused() -> None:
    """Hammer's import loads ``Bool``; a header that does not load it may
    not be proved through it, while a proof by CoqHammer's own tactics passes."""
    statement = "Lemma twice (b : bool) : negb (negb b) = b."
    through_bool = check_proof(
        "", statement, ["apply Bool.negb_involutive"], header_suffix=HAMMER_TACTICS_IMPORT
    )
    assert not through_bool.ok and "leak" in through_bool.message
    assert "negb_involutive" in through_bool.message
    # Where the header loads Bool itself, the same proof is honest.
    assert check_proof(
        "Require Import Bool.", statement, ["apply Bool.negb_involutive"],
        header_suffix=HAMMER_TACTICS_IMPORT,
    ).ok  # fmt: skip
    by_sauto = check_proof("", statement, ["sauto"], header_suffix=HAMMER_TACTICS_IMPORT)
    assert by_sauto.ok, by_sauto.message
    # Without the suffix the tactic does not exist: the suffix is what the proof needs.
    assert not check_proof("", statement, ["sauto"]).ok


@requires_hammer
def test_the_prover_runs_the_suffix_after_the_header() -> None:
    theorem = Theorem(
        "twice", "Lemma twice (b : bool) : negb (negb b) = b.",
        extra={"header_suffix": HAMMER_TACTICS_IMPORT},
    )  # fmt: skip
    with CoqProver() as prover:
        session = prover.open(theorem)
        outcome = session.apply(session.root, "sauto")
        assert type(outcome).__name__ == "Proved", outcome
        assert prover.check(theorem, ["sauto"]).ok
        assert not prover.check(theorem, ["apply Bool.negb_involutive"]).ok


class _Offering(TacticGenerator):
    """Offers the same tactics at every state; with CoqHammer's import as its suffix."""

    def __init__(self, tactics: list[str], suffix: str = "") -> None:
        self.tactics = tactics
        self.header_suffix = suffix

    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        return [Suggestion(t, -0.1 * i) for i, t in enumerate(self.tactics)][:n]


@requires_hammer
def test_only_the_stage_that_needs_the_import_sees_it() -> None:
    """The ``hammer`` stage's search opens the theorem with the import; the next stage's
    search runs where the header alone was loaded, so a step that only the import
    makes work (``Bool`` is loaded by it, not by the header) fails there instead of
    being found and refused as a leak, and a proof by the first stage carries it."""
    theorem = Theorem("twice", "Lemma twice (b : bool) : negb (negb b) = b.")
    through_bool = _Offering(["apply Bool.negb_involutive"])
    config = SearchConfig(timeout=60, num_sampled_tactics=4)
    with CoqProver() as prover:
        failing = _Offering(["fail"], HAMMER_TACTICS_IMPORT)
        schedule = ScheduledGenerator([Stage("hammer", 1, failing), Stage("b", 1, through_bool)])
        result = BestFirstSearchProver(prover, schedule, config).search(theorem)
        assert result.status is Status.FAILED, result.error
        assert "header_suffix" not in result.to_record()
        proving = _Offering(["sauto"], HAMMER_TACTICS_IMPORT)
        schedule = ScheduledGenerator([Stage("hammer", 1, proving), Stage("b", 1, through_bool)])
        result = BestFirstSearchProver(prover, schedule, config).search(theorem)
        assert result.status is Status.PROVED and result.proof == ["sauto"], result.error
        record = result.to_record()
        assert record["stage"] == "hammer" and record["header_suffix"] == HAMMER_TACTICS_IMPORT
