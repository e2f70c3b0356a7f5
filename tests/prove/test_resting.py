"""Which filled proofs rest on a lemma left ``Admitted`` (``writeback.resting_on_admitted``)."""

from __future__ import annotations

from pathlib import Path

from proofsearch.project.holes import Hole, find_holes
from proofsearch.project.writeback import full_name, resting_on_admitted
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


def _holes(text: str = TEXT, file: str = "Pmod.v", module: str = "P.Pmod") -> dict[str, Hole]:
    holes, _ = find_holes(Source(Path(f"/nowhere/{file}"), file, module), text)
    return {hole.qualid: hole for hole in holes}


def test_one_lemma_printed_two_ways_is_named_once() -> None:
    """``outer`` prints ``Pmod.left_open`` and rests on ``through``, whose own
    assumptions print ``left_open`` short: one lemma, reported once, as its file names
    it; through a filled hole too; a proof on no hole is not listed."""
    holes = _holes()
    axioms = {
        holes["through"]: ["left_open"],
        holes["outer"]: ["Pmod.left_open", "Pmod.through", "Classical_Prop.classic"],
        holes["alone"]: ["Classical_Prop.classic"],
    }
    filled = [holes["through"], holes["outer"], holes["alone"]]
    resting = resting_on_admitted(axioms, filled, {"P.Pmod.left_open": "P.Pmod"})
    assert resting == {
        holes["through"]: ["left_open"],
        holes["outer"]: ["left_open"],
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
    resting = resting_on_admitted(axioms, list(axioms), {})
    assert resting == {
        holes["alone"]: ["Defs.interleave_obligations_obligation_1"],
        holes["outer"]: ["Defs.g_obligation_2"],
    }


CHAPTER = """\
Module L.
Lemma r : 1 = 1.
Proof. Admitted.
Lemma s : 2 = 2.
Proof. Admitted.
Lemma x : 3 = 3.
Proof. Admitted.
End L.
"""
LATER = """\
Lemma r : 0 = 1.
Proof. Admitted.
Lemma x : True.
Proof. Admitted.
"""


def test_lemmas_are_told_apart_by_their_whole_names() -> None:
    """A textbook's chapters reuse names. ``L.s`` rests on ``L.r``, filled: it rests on
    nothing, though ``B.r`` (another file, which A does not load) stays Admitted (it
    was said to rest on it, and ``--strict`` left it). ``L.x`` rests on ``L.z``, left
    Admitted, and ``B.x`` is filled too: the two ``x`` were one name, one of them was
    never checked, and ``--strict`` wrote a proof resting on an admitted lemma."""
    a = _holes(CHAPTER, "A.v", "Mini.A")
    b = _holes(LATER, "B.v", "Mini.B")
    axioms = {a["L.s"]: ["L.r"], a["L.x"]: ["L.z"], b["x"]: [], a["L.r"]: []}
    filled = [a["L.r"], a["L.s"], a["L.x"], b["x"]]
    still = {"Mini.B.r": "Mini.B", "Mini.A.L.z": "Mini.A"}
    requires = {"Mini.A": [], "Mini.B": ["Mini.A"]}
    assert full_name(a["L.s"]) == "Mini.A.L.s"
    assert resting_on_admitted(axioms, filled, still, requires) == {a["L.x"]: ["L.z"]}
    # From B, which loads A, A's lemma prints by the suffix that is unambiguous there.
    axioms = {b["x"]: ["L.z"]}
    assert resting_on_admitted(axioms, [b["x"]], still, requires) == {b["x"]: ["L.z"]}
