"""Which filled proofs rest on a lemma left ``Admitted`` (``writeback.resting_on_admitted``)."""

from __future__ import annotations

from pathlib import Path

from proofsearch.project.holes import Hole, find_holes
from proofsearch.project.writeback import resting_on_admitted
from proofsearch.trace.sources import Source

TEXT = """\
Lemma left_open : 1 = 1.
Proof. Admitted.
Lemma through : 2 = 2.
Proof. Admitted.
Lemma outer : 3 = 3.
Proof. Admitted.
Lemma alone : 4 = 4.
Proof. Admitted.
"""


def _holes() -> dict[str, Hole]:
    holes, _ = find_holes(Source(Path("/nowhere/Pmod.v"), "Pmod.v", "P.Pmod"), TEXT)
    return {hole.qualid: hole for hole in holes}


def test_one_lemma_printed_two_ways_is_named_once() -> None:
    """``outer`` (in a later file, say) prints ``Pmod.left_open`` and rests on ``through``,
    whose own assumptions print ``left_open`` short: one lemma, reported once, by its
    most qualified name; through a filled hole too; a proof on no hole is not listed."""
    holes = _holes()
    axioms = {
        holes["through"]: ["left_open"],
        holes["outer"]: ["Pmod.left_open", "Pmod.through", "Classical_Prop.classic"],
        holes["alone"]: ["Classical_Prop.classic"],
    }
    filled = [holes["through"], holes["outer"], holes["alone"]]
    resting = resting_on_admitted(axioms, filled, ["left_open"])
    assert resting == {
        holes["through"]: ["left_open"],
        holes["outer"]: ["Pmod.left_open"],
    }


def test_an_admitted_obligation_is_an_admitted_lemma() -> None:
    """A proof that goes through because an ``Equations``/``Program`` obligation was
    left ``Admitted`` (the obligation is an axiom to ``Print Assumptions``) was written
    as ``Qed`` with no word, and ``--strict`` let it through."""
    holes = _holes()
    axioms = {
        holes["alone"]: ["Defs.interleave_obligations_obligation_1"],
        holes["outer"]: ["Defs.g_obligation_2", "Classical_Prop.classic"],
        holes["through"]: ["Classical_Prop.classic", "Defs.obligation_free"],
    }
    resting = resting_on_admitted(axioms, list(axioms), [])
    assert resting == {
        holes["alone"]: ["Defs.interleave_obligations_obligation_1"],
        holes["outer"]: ["Defs.g_obligation_2"],
    }
