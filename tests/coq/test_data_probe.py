"""The data probe: a statement whose type is data is refused when the theorem asks
(``propositions_only``), one that carries a proposition is opened.

``prove`` sets the field on every hole: a ``Definition f : nat -> nat`` was "filled"
with the identity (any value type-checks), a ``{n | n > 0}`` is a proof of what it says.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from proofsearch.env.base import EnvError
from proofsearch.env.coq import CoqConfig, CoqProver
from proofsearch.env.coq.data_probe import DATA_REASON
from proofsearch.theorem import Theorem

HEADER = """\
Class Inhab (A : Type) := { inhab : A }.
Record spec := { f : nat -> nat ; f_grows : forall n, f n > n }.
Definition Dec (P : Prop) := {P} + {~P}.
Section S.
Variable A : Type.
"""

DATA = [
    "A -> A",  # a Section's type: no constructor at all
    "nat -> nat",
    "nat",
    "nat -> bool",
    "Inhab nat",  # a class whose field is data
    "nat -> Prop",
    "forall B : Type, B -> B",
    "nat * list nat",
]
PROPOSITIONS = [
    "forall n, n + 0 = n",
    "False",
    "True /\\ True",
    "{n | n > 0}",
    "forall x y : nat, {x = y} + {x <> y}",
    "forall x y : nat, Dec (x = y)",  # a sumbool behind a definition
    "spec",  # a record with a proof among its fields
    "sigT (fun n : nat => n = 0)",
    "(nat -> nat) * {n | n = 0}",  # the proposition one constructor further down
    "{n : nat | n = 0} + nat",  # one constructor of two
]


@pytest.fixture(scope="module")
def prover() -> Iterator[CoqProver]:
    with CoqProver(CoqConfig(tactic_timeout=5)) as instance:
        yield instance


def _theorem(index: int, type_: str, only: bool = True) -> Theorem:
    extra = {"propositions_only": True} if only else {}
    return Theorem(f"t{index}", f"Lemma t{index} : {type_}.", HEADER, extra=extra)


@pytest.mark.parametrize("type_", DATA)
def test_data_is_refused(prover: CoqProver, type_: str) -> None:
    with pytest.raises(EnvError) as refused:
        prover.open(_theorem(DATA.index(type_), type_))
    assert str(refused.value) == DATA_REASON
    with prover.open(_theorem(0, type_, only=False)) as session:  # without the field
        assert session.root.goals


@pytest.mark.parametrize("type_", PROPOSITIONS)
def test_a_type_that_carries_a_proposition_is_opened(prover: CoqProver, type_: str) -> None:
    with prover.open(_theorem(PROPOSITIONS.index(type_), type_)) as session:
        assert session.root.goals
