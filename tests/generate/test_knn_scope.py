"""The edges of knn's no-leak scope (issue 20): ``Require``\\ s after a theorem's line,
entries at ``line - 1`` and ``line``, a three-module chain, the prelude rule, and
online learning (a proof with no ``line``, one that cannot be placed, one in a module
that depends on the searching one, the scope cache read by concurrent callers).

Every recorded state below has the same goal, each with its own tactic, so the tactics
knn suggests for that goal are exactly the states the theorem may see.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from tests.generate.knn_trace import goal, step

from proofsearch.generate.knn.corpus import TraceCorpus, build_corpus
from proofsearch.generate.knn.generator import KnnGenerator
from proofsearch.generate.knn.goals import parse_first_goal
from proofsearch.generate.knn.scope import Scope, ScopeCache
from proofsearch.generate.retrieval.premises import PremiseRetriever
from proofsearch.theorem import Theorem
from proofsearch.trace.schema import FileRecord, Premise

GOAL = goal("shared_pred k", ("k", "nat"))
STATE = GOAL.render()


@dataclass
class Module:
    """A traced module: what it requires (and where), its steps and premises by line."""

    requires: Sequence[str] = ()
    require_lines: Mapping[str, int] | None = None
    #: line → tactic name (``apply NAME``): a one-step proof of ``GOAL``, stated a line before.
    steps: Mapping[int, str] = field(default_factory=dict)
    #: line → premise short name.
    premises: Mapping[int, str] = field(default_factory=dict)
    #: line → (name as a functor's body names it, the line of the functor's ``End``).
    functor_premises: Mapping[int, tuple[str, int]] = field(default_factory=dict)


def write(root: Path, modules: Mapping[str, Module]) -> Path:
    files = root / "files"
    files.mkdir(parents=True)
    for name, spec in modules.items():
        record = FileRecord(
            file=f"/src/{name}.v",
            module=name,
            requires=list(spec.requires),
            require_lines=dict(spec.require_lines) if spec.require_lines is not None else None,
            key=f"key-{name}",
            coq_version="8.16.1",
            status="traced",
            steps=len(spec.steps),
            premises=len(spec.premises),
        )
        steps = [
            step(name, f"l{line}", line - 1, 0, GOAL, f"apply {t}.")
            for line, t in spec.steps.items()
        ]
        declared = [(line, f"{name}.{short}", None) for line, short in spec.premises.items()]
        declared += [(line, local, end) for line, (local, end) in spec.functor_premises.items()]
        premises = [
            Premise(
                name=qualified,
                kind="Lemma" if until is None else "Parameter",
                statement="forall k : nat, shared_pred k",
                file=f"/src/{name}.v",
                module=name,
                line=line,
                offset=line * 40,
                until=until,
            )
            for line, qualified, until in declared
        ]
        (files / f"{name}.meta.json").write_text(record.model_dump_json())
        (files / f"{name}.steps.jsonl").write_text(
            "".join(s.model_dump_json() + "\n" for s in steps)
        )
        (files / f"{name}.premises.jsonl").write_text(
            "".join(p.model_dump_json() + "\n" for p in premises)
        )
    return root


def corpus_of(tmp_path: Path, modules: Mapping[str, Module]) -> TraceCorpus:
    return build_corpus(write(tmp_path / "trace", modules))


def seen(knn: KnnGenerator, theorem: Theorem) -> set[str]:
    return {s.tactic for s in knn.generate(STATE, theorem, 500)}


def premises_seen(corpus: TraceCorpus, theorem: Theorem) -> set[str]:
    found = PremiseRetriever(corpus).retrieve(parse_first_goal(STATE), theorem, 100)
    return {p.qualified_name for p in found}


def at(module: str, line: int | None = None) -> Theorem:
    extra: dict[str, object] = {"module": module}
    if line is not None:
        extra["line"] = line
    return Theorem(f"t_{module}_{line}", "Lemma t : True.", extra=extra)


# -- Requires after the theorem's line ------------------------------------------------

LATE_REQUIRE = {
    "Lib.Early": Module(steps={10: "early_tactic"}, premises={9: "early_lemma"}),
    "Lib.Deep": Module(steps={10: "deep_tactic"}),
    "Lib.Late": Module(requires=["Lib.Deep"], steps={10: "late_tactic"}),
    # Requires Early at line 1 and Late at line 40, after its lemma at line 20.
    "Lib.M": Module(
        requires=["Lib.Early", "Lib.Late"],
        require_lines={"Lib.Early": 1, "Lib.Late": 40},
        steps={21: "own_tactic"},
    ),
}


def test_a_require_after_the_line_is_not_visible_nor_what_it_requires(tmp_path: Path) -> None:
    corpus = corpus_of(tmp_path, LATE_REQUIRE)
    knn = KnnGenerator(corpus)
    assert seen(knn, at("Lib.M", 20)) == {"apply early_tactic"}
    assert premises_seen(corpus, at("Lib.M", 20)) == {"Lib.Early.early_lemma"}
    # Exactly at the Require's line: not yet loaded; after it: the module and its deps.
    assert seen(knn, at("Lib.M", 40)) == {"apply early_tactic", "apply own_tactic"}
    assert seen(knn, at("Lib.M", 41)) == {
        "apply early_tactic",
        "apply own_tactic",
        "apply late_tactic",
        "apply deep_tactic",
    }
    # No line: nowhere in the file, so every require (and nothing of the module).
    assert seen(knn, at("Lib.M")) == {
        "apply early_tactic",
        "apply late_tactic",
        "apply deep_tactic",
    }


def test_a_trace_without_require_lines_keeps_every_require_visible(tmp_path: Path) -> None:
    legacy = {
        **LATE_REQUIRE,
        "Lib.M": Module(requires=["Lib.Early", "Lib.Late"], steps={21: "own_tactic"}),
    }
    knn = KnnGenerator(corpus_of(tmp_path, legacy))
    assert seen(knn, at("Lib.M", 20)) == {
        "apply early_tactic",
        "apply late_tactic",
        "apply deep_tactic",
    }


def test_require_lines_survive_the_corpus_cache(tmp_path: Path) -> None:
    corpus = corpus_of(tmp_path, LATE_REQUIRE)
    again = TraceCorpus.from_payload(corpus.payload())
    assert seen(KnnGenerator(again), at("Lib.M", 20)) == {"apply early_tactic"}


# -- Boundaries ---------------------------------------------------------------------

CHAIN = {
    "Lib.A": Module(steps={10: "a_tactic"}, premises={10: "a_lemma"}),
    "Lib.B": Module(
        requires=["Lib.A"], steps={10: "b_tactic", 30: "b_late_tactic"}, premises={30: "b_lemma"}
    ),
    "Lib.C": Module(requires=["Lib.B"], steps={10: "c_tactic"}),
    "Lib.Apart": Module(steps={10: "apart_tactic"}),
}


def test_entries_at_line_minus_one_are_visible_and_at_line_are_not(tmp_path: Path) -> None:
    corpus = corpus_of(tmp_path, CHAIN)
    knn = KnnGenerator(corpus)
    assert "apply b_late_tactic" not in seen(knn, at("Lib.B", 30))  # the step is at 30
    assert "apply b_late_tactic" in seen(knn, at("Lib.B", 31))
    assert "Lib.B.b_lemma" not in premises_seen(corpus, at("Lib.B", 30))  # declared at 30
    assert "Lib.B.b_lemma" in premises_seen(corpus, at("Lib.B", 31))


def test_a_three_module_chain_sees_through_the_middle(tmp_path: Path) -> None:
    knn = KnnGenerator(corpus_of(tmp_path, CHAIN))
    assert seen(knn, at("Lib.C", 100)) == {
        "apply a_tactic",
        "apply b_tactic",
        "apply b_late_tactic",
        "apply c_tactic",
    }
    # Dependencies point one way: A sees nothing of B or C, B nothing of C.
    assert seen(knn, at("Lib.A", 100)) == {"apply a_tactic"}
    assert "apply c_tactic" not in seen(knn, at("Lib.B", 100))


PRELUDE = {
    "Coq.Init.Logic": Module(steps={10: "logic_tactic"}),
    "Coq.Init.Datatypes": Module(requires=["Coq.Init.Logic"], steps={10: "datatypes_tactic"}),
    "Coq.Init.Prelude": Module(requires=["Coq.Init.Datatypes"], steps={10: "prelude_tactic"}),
    "Coq.Init.Tactics": Module(steps={10: "init_tactics_tactic"}),  # not required by Prelude
    "Coq.Lists.List": Module(steps={10: "list_tactic"}),
    "Lib.U": Module(steps={10: "user_tactic"}),
}


def test_the_prelude_is_seen_by_every_module_outside_it(tmp_path: Path) -> None:
    knn = KnnGenerator(corpus_of(tmp_path, PRELUDE))
    prelude = {"apply logic_tactic", "apply datatypes_tactic", "apply prelude_tactic"}
    # A module requiring nothing sees the prelude and its dependencies, nothing else.
    assert seen(knn, at("Lib.U", 5)) == prelude
    assert seen(knn, at("Coq.Lists.List", 5)) == prelude
    assert seen(knn, at("Coq.Init.Tactics", 5)) == prelude
    # Inside the prelude, a module sees only what it requires (Coq compiles it -noinit).
    assert seen(knn, at("Coq.Init.Datatypes", 5)) == {"apply logic_tactic"}
    assert seen(knn, at("Coq.Init.Logic", 100)) == {"apply logic_tactic"}


# -- Online learning ----------------------------------------------------------------

LEARNED = "apply learned_tactic"


def test_a_learned_proof_without_line_counts_as_after_everything(tmp_path: Path) -> None:
    knn = KnnGenerator(corpus_of(tmp_path, CHAIN))
    knn.learn(at("Lib.B"), [(STATE, LEARNED + ".")])
    assert LEARNED not in seen(knn, at("Lib.B", 10_000))
    assert LEARNED not in seen(knn, at("Lib.B"))
    assert LEARNED in seen(knn, at("Lib.C", 5))  # C requires B: all of B is loaded


def test_a_proof_that_cannot_be_placed_is_not_learned(tmp_path: Path) -> None:
    knn = KnnGenerator(corpus_of(tmp_path, CHAIN))
    knn.learn(at("Lib.Unknown", 3), [(STATE, LEARNED + ".")])
    knn.learn(Theorem("f", "L", extra={"file": "Nope.v", "line": 3}), [(STATE, LEARNED + ".")])
    assert knn.learned.tactics == []
    for theorem in (at("Lib.A", 1), at("Lib.Apart", 1), Theorem("new", "L")):
        assert LEARNED not in seen(knn, theorem)


def test_a_proof_learned_in_a_dependent_module_is_not_seen_upstream(tmp_path: Path) -> None:
    knn = KnnGenerator(corpus_of(tmp_path, CHAIN))
    knn.learn(at("Lib.B", 20), [(STATE, LEARNED + ".")])
    assert LEARNED not in seen(knn, at("Lib.A", 10_000))  # B requires A, not the reverse
    assert LEARNED not in seen(knn, at("Lib.Apart", 10_000))
    assert LEARNED not in seen(knn, at("Lib.B", 20))
    assert LEARNED in seen(knn, at("Lib.B", 21))
    assert LEARNED in seen(knn, at("Lib.C", 1))
    assert LEARNED in seen(knn, Theorem("new", "L"))  # a new theorem sees everything


class _Interleaved(ScopeCache):
    """A cache whose remembered entry is replaced by another theorem's after its
    ``reads``-th read, as another caller's :meth:`get` would replace it meanwhile."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        self.replacement: object = None
        self.reads = 0
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    @property  # type: ignore[override]
    def _last(self) -> object:
        value = self.__dict__.get("slot")
        if self.replacement is not None and value is not None:
            self.reads -= 1
            if self.reads == 0:
                self.__dict__["slot"], self.replacement = self.replacement, None
        return value

    @_last.setter
    def _last(self, value: object) -> None:
        self.__dict__["slot"] = value


@pytest.mark.parametrize("reads", [1, 2, 3])
def test_scope_cache_reads_its_entry_once(tmp_path: Path, reads: int) -> None:
    """Wherever the other caller's entry lands, ``get`` answers for the theorem asked."""
    corpus = corpus_of(tmp_path, CHAIN)
    module, line = corpus.arrays["state_module"], corpus.arrays["state_line"]
    cache = _Interleaved(corpus.table, module, line)
    a, c = at("Lib.A", 100), at("Lib.C", 100)
    scope_a, mask_a = cache.get(a.name, a.extra)
    other = ScopeCache(corpus.table, module, line)
    other.get(c.name, c.extra)
    cache.replacement, cache.reads = other._last, reads
    scope, mask = cache.get(a.name, a.extra)
    assert scope == scope_a == Scope(corpus.table.index["Lib.A"], 100)
    assert mask is not None and mask_a is not None and np.array_equal(mask, mask_a)


# -- learn_from: a hole of a user's project imitates every proof of the project ------

PROJECT = {
    "Lib.A": Module(steps={10: "a_tactic"}, premises={5: "a_lemma"}),
    # A hole at line 20 of P: one proof above it, two below (one naming a lemma stated at
    # line 40, after the hole), and a file Q that requires P.
    "Proj.P": Module(
        requires=["Lib.A"],
        steps={10: "p_above", 50: "p_late_lemma", 60: "p_below"},
        premises={40: "p_late_lemma"},
    ),
    "Proj.Q": Module(requires=["Proj.P"], steps={10: "q_tactic"}),
}


def hole(line: int, learn_from: object = ("Proj.P", "Proj.Q")) -> Theorem:
    theorem = at("Proj.P", line)
    if learn_from is not None:
        theorem.extra["learn_from"] = (
            list(learn_from) if isinstance(learn_from, tuple) else learn_from
        )
    return theorem


FUNCTOR = {
    # A functor from line 3 to its End at line 10: its parameter's field `X.inside`.
    "Lib.A": Module(premises={2: "glob"}, functor_premises={3: ("X.inside", 10)}),
    "Lib.B": Module(requires=["Lib.A"], require_lines={"Lib.A": 1}),
}


def test_a_functor_premise_is_seen_inside_its_body_only(tmp_path: Path) -> None:
    """A premise of a functor's body (`X.inside`) is a name only there: not after its
    `End`, not from another module, not for a theorem new to the project."""
    corpus = corpus_of(tmp_path, FUNCTOR)
    assert premises_seen(corpus, at("Lib.A", 3)) == {"Lib.A.glob"}
    assert premises_seen(corpus, at("Lib.A", 4)) == {"Lib.A.glob", "X.inside"}
    assert premises_seen(corpus, at("Lib.A", 10)) == {"Lib.A.glob", "X.inside"}
    assert premises_seen(corpus, at("Lib.A", 11)) == {"Lib.A.glob"}
    assert premises_seen(corpus, at("Lib.A")) == set()
    assert premises_seen(corpus, at("Lib.B", 5)) == {"Lib.A.glob"}
    new = Theorem("new", "Lemma t : True.")
    assert premises_seen(corpus, new) == {"Lib.A.glob"}


def test_a_functor_premise_changes_no_score_outside_its_body(tmp_path: Path) -> None:
    """BM25's statistics are the library's constants': the stdlib's 9,556 functor
    premises (MSets, Numbers) leave every other theorem's ranking as it was."""
    plain = {"Lib.A": Module(premises={2: "glob", 5: "other"}), "Lib.B": FUNCTOR["Lib.B"]}
    with_functor = {
        "Lib.A": Module(premises={2: "glob", 5: "other"}, functor_premises={3: ("X.f", 4)}),
        "Lib.B": FUNCTOR["Lib.B"],
    }
    goal = parse_first_goal(STATE)
    found = []
    for index, modules in enumerate((plain, with_functor)):
        corpus = corpus_of(tmp_path / str(index), modules)
        found.append(PremiseRetriever(corpus).retrieve(goal, at("Lib.B", 5), 10))
    assert [(p.name, p.score) for p in found[0]] == [(p.name, p.score) for p in found[1]]
    assert len(found[0]) == 2


def test_learn_from_widens_the_steps_not_the_premises(tmp_path: Path) -> None:
    corpus = corpus_of(tmp_path, PROJECT)
    knn = KnnGenerator(corpus)
    assert seen(knn, hole(20, None)) == {"apply a_tactic", "apply p_above"}
    # The proofs below the hole and in Q, but not the step naming a lemma stated after
    # the hole: Coq would refuse it there.
    assert seen(knn, hole(20)) == {
        "apply a_tactic", "apply p_above", "apply p_below", "apply q_tactic"
    }  # fmt: skip
    # Below that lemma's statement, the step names a lemma the hole may use.
    assert "apply p_late_lemma" in seen(knn, hole(45))
    # Premises keep Coq's scope.
    assert premises_seen(corpus, hole(20)) == premises_seen(corpus, hole(20, None))
    assert "Proj.P.p_late_lemma" not in premises_seen(corpus, hole(20))
    # A module the index does not have holds nothing to learn from.
    assert seen(knn, hole(20, ("Proj.Gone",))) == {"apply a_tactic", "apply p_above"}


def test_learn_from_widens_learned_proofs_with_the_same_premise_rule(tmp_path: Path) -> None:
    knn = KnnGenerator(corpus_of(tmp_path, PROJECT))
    knn.learn(at("Proj.Q", 30), [(STATE, "apply learned_in_q.")])
    knn.learn(at("Proj.Q", 31), [(STATE, "apply p_late_lemma; apply learned_naming.")])
    assert "apply learned_in_q" not in seen(knn, hole(20, None))  # P does not require Q
    widened = seen(knn, hole(20))
    assert "apply learned_in_q" in widened
    assert "apply p_late_lemma; apply learned_naming" not in widened
    assert "apply p_late_lemma; apply learned_naming" in seen(knn, hole(45))


def test_learn_from_must_be_a_list_of_module_names(tmp_path: Path) -> None:
    knn = KnnGenerator(corpus_of(tmp_path, PROJECT))
    with pytest.raises(ValueError, match="field 'learn_from': expected a list of module names"):
        knn.generate(STATE, hole(20, "Proj.P"), 10)
