"""ssreflect's tactic language passes the guard, and reaches Coq intact.

The sentences below are copied from math-comp's ssreflect sources (Debian's
``libcoq-mathcomp-ssreflect``, 1.15.0; file named on each). The real-Coq tests need that
library and skip, saying so, where it is not installed. The ssreflect-flavoured cheats
are in ``test_soundness.py`` (they need only Coq's own ``ssreflect``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from proofsearch.env.coq import CoqConfig, CoqProver, xml
from proofsearch.env.coq.backend import CoqSession
from proofsearch.env.coq.guard import check_tactic
from proofsearch.env.coq.idetop import Call
from proofsearch.env.coq.sentences import split_sentences
from proofsearch.env.coq.vernac import NON_TACTIC_WORDS, PROOF_ENDERS, command_of
from proofsearch.env.coq.version import coq_where
from proofsearch.theorem import Theorem

#: (source file, sentence without its final '.'), from math-comp 1.15.0's ssreflect.
MATHCOMP_SENTENCES = [
    ("bigop.v", "by move=> x y z; rewrite !mulmA (mulmC x)"),
    ("bigop.v", "by []"),
    ("bigop.v", "rewrite mem_iota; case le_m_i: (m <= i) => //="),
    ("bigop.v", "by rewrite unlock; elim: r => //= i r; case: ifP => //; apply: K_F"),
    ("bigop.v", "rewrite -big_filter -(big_filter r); congr bigop"),
    ("bigop.v", "by move=> <-{r2}; apply: eq_big"),
    ("bigop.v", "apply: eq_big => i; rewrite ?inE /= !mem_index_iota"),
    ("bigop.v", "by case: n => [//|n] le_m_n; rewrite /index_iota subSn // big_cons"),
    ("bigop.v", "rewrite /index_iota subn0 -(big_map (@nat_of_ord n))"),
    ("bigop.v", "case: n1 => [|n1] /= in le_n12 *"),
    ("bigop.v", "pose G i := F (inord i); have eqFG i: F i = G i by rewrite /G inord_val"),
    ("bigop.v", "under eq_bigr do rewrite eqFG; under [in RHS]eq_bigr do rewrite eqFG"),
    ("bigop.v", "set e := filter P _; have Ue: uniq e by apply/filter_uniq/index_enum_uniq"),
    ("bigop.v", "have mem_e i: i \\in e = P i by rewrite mem_filter mem_index_enum andbT"),
    ("bigop.v", "split=> // [R idx op F | cP]; first by rewrite big_filter"),
    ("bigop.v", "suffices De: perm_eq e (enum cP) by rewrite (perm_size De) cardE"),
    ("bigop.v", "elim: r1 => [|i1 r1 IHr1]; first by rewrite !big_nil"),
    ("bigop.v", "move=> le_mn le_np; rewrite -big_cat -{2}(subnKC le_mn) -iotaD subnDA"),
    ("bigop.v", "rewrite /= big_cons; case: (h r0) => [i|] /=; last by rewrite mul1m"),
    ("bigop.v", "by rewrite big_endo ?mulm0 // => x y; apply: mulmDr"),
    ("bigop.v", "apply/familyP/eqP=> /= [Df |->{f} i]; last by rewrite ffunE !inE"),
    ("bigop.v", "by move=> Fpos; elim/big_ind: _ => // n1 n2; rewrite muln_gt0 => ->"),
    ("bigop.v", "apply: (iffP idP) => leFm => [i Pi|]"),
    ("bigop.v", "exact/(leq_trans _ leFm)/leq_bigmax_seq"),
    ("binomial.v", "rewrite -[1 ^ 2]/(Fp1 : nat) -addnBA // dvdn_addl"),
    ("binomial.v", "exists ttail => [t _ | t /andP[_ /eqP <-]]; first exact: val_inj"),
    ("div.v", "elim/ltn_ind: m 0 => -[|m] IHm q //=; rewrite subn_if_gt"),
    ("div.v", "wlog: q q' r r' / q <= q' by case/orP: (leq_total q q'); last symmetry; eauto"),
    ("div.v", "have ->: gcdn n r = d by rewrite [d]gcdnC gcdnMDl"),
    ("seq.v", "have [-> | ne_n12] := eqVneq"),
    ("seq.v", "elim: s => //= x s IHs; rewrite /= addnACA [RHS]addnACA IHs"),
    ("seq.v", "by move/subKn; rewrite -size_drop -[in size s](cat_take_drop s) size_cat addnK"),
    ("seq.v", "have [le_sn | lt_ns] := leqP (size s) n0; first by rewrite take_oversize"),
    ("seq.v", "by case: s => [|a s]//; rewrite /= ltnS"),
    ("seq.v", "case: eqP => [->{y} | ne_xy]; last by right=> [] [? _]; case ne_xy"),
    ("seq.v", "move/count_uniq_mem->; case: (boolP (_ \\in _)) => //= _; last by constructor"),
    ("seq.v", "have [n le_an] := ubnP (count a (s1 ++ s2)); elim: n => // n IHn in a le_an *"),
    ("seq.v", "by move/(_ a)/eqP: eq23; rewrite !count_cat eqn_add2l"),
    ("seq.v", "suffices: perm_eq s (undup s) by move/perm_uniq->"),
    ("seq.v", "by have [_|/eqnP->] := ltnP; rewrite ?subnn take0 cats0"),
    ("seq.v", "apply: {IHs2}(iffP (IHs2 _)) => [] [m sz_m def_s1]"),
]

#: The forms of the language one by one (intro patterns, switches, views, clears...).
SSREFLECT_FORMS = [
    "move=> x y", "move=> /eqP ->", "move=> [x|y] //", "move=> [] //=", "move=> {h}",
    "move: {h}(h) => h'", "move/andP=> [a b]", "case: h", "case: n => [|n] in H *",
    "case/orP: h", "case/andP: h => -> _", "elim: n => [|n IHn]", "elim/big_ind2: _",
    "apply/eqP", "apply: L", "apply: (iffP idP)", "apply/andP; split", "exact/eqP",
    "exact: L", "rewrite /= -foo {2}bar", "rewrite -[x]/(y)", "rewrite !addnA ?muln1 //",
    "rewrite {}/f", "rewrite [in RHS]addnC", "rewrite -{1}[n]muln1", "//", "/=", "//=",
    "by []", "by move=> ->", "done", "congr (_ + _)", "set x := f y", "pose n := 3",
    "have h : P by done", "have [x|y] := P", "have -> : x = y by []", "have /eqP h := H",
    "wlog: x y / x <= y", "suff h : P", "suffices: P by apply", "abstract: h",
    "under eq_bigr => i do rewrite foo", "first by []", "last first", "do ?split",
    "case: ifP => _ //", "elim=> [|n IHn] //=; rewrite ?addn0",
]  # fmt: skip

MATHCOMP = "From mathcomp Require Import all_ssreflect."


def mathcomp_sources() -> Path:
    """math-comp's ssreflect sources, or a skip saying how to install them."""
    folder = coq_where() / "user-contrib" / "mathcomp" / "ssreflect"
    if not (folder / "ssrnat.v").is_file():
        pytest.skip(
            f"math-comp's ssreflect is not installed ({folder}/ssrnat.v missing): "
            "apt-get install libcoq-mathcomp-ssreflect"
        )
    return folder


def proof_sentences(folder: Path) -> list[str]:
    """Every tactic sentence between ``Proof.`` and its end, in every file of ``folder``."""
    tactics: list[str] = []
    for path in sorted(folder.glob("*.v")):
        in_proof = False
        for sentence in split_sentences(path.read_text()):
            text = sentence.text.strip()
            command = command_of(text)
            if command.word == "Proof":
                in_proof = True
            elif command.word in PROOF_ENDERS:
                in_proof = False
            elif in_proof and command.word not in NON_TACTIC_WORDS and set(text) - set("-+*{} "):
                tactics.append(text.removesuffix("."))
    return tactics


@pytest.mark.parametrize(("source", "tactic"), MATHCOMP_SENTENCES)
def test_real_ssreflect_sentences_pass_the_guard(source: str, tactic: str) -> None:
    assert check_tactic(tactic) == tactic


@pytest.mark.parametrize("tactic", SSREFLECT_FORMS)
def test_every_form_of_the_language_passes_the_guard(tactic: str) -> None:
    assert check_tactic(tactic) == tactic


@pytest.fixture(scope="module")
def mathcomp_session() -> Iterator[tuple[CoqProver, CoqSession]]:
    mathcomp_sources()
    with CoqProver(CoqConfig()) as prover:
        session = prover.open(Theorem("x", "Lemma x : True.", MATHCOMP))
        yield prover, session


def parses(prover: CoqProver, tip: int, sentences: list[str]) -> list[bool]:
    """Whether coqidetop parses each sentence on ``tip`` (``Add`` parses, runs nothing)."""
    verdicts: list[bool] = []
    for start in range(0, len(sentences), 20):  # a batch small enough for the pipes
        calls: list[Call] = []
        for sentence in sentences[start : start + 20]:
            calls += [Call(xml.add_call(sentence, tip), 30), Call(xml.edit_at_call(tip), 30)]
        replies = prover.line.calls(calls)
        verdicts += [reply.good for reply in replies[::2]]
    return verdicts


def test_the_sentences_reach_coq_as_they_are_written(
    mathcomp_session: tuple[CoqProver, CoqSession],
) -> None:
    """Each one parses as the backend sends it, ``Timeout N (TACTIC ).``: without the
    blank, ``… in H *)`` ended in the ``*)`` token, a syntax error."""
    prover, session = mathcomp_session
    wrapped = [session._wrap(tactic, 5) for _, tactic in MATHCOMP_SENTENCES]
    verdicts = parses(prover, prover.line.tip(), wrapped)
    assert [s for s, ok in zip(wrapped, verdicts, strict=True) if not ok] == []


def test_the_whole_library_passes_the_guard_and_the_wrapper(
    mathcomp_session: tuple[CoqProver, CoqSession],
) -> None:
    """Every proof sentence of math-comp's ssreflect: the guard accepts it, and it parses
    wrapped exactly when it parses alone (some need their file's local notations)."""
    prover, session = mathcomp_session
    tactics = proof_sentences(mathcomp_sources())
    assert len(tactics) > 5000
    for tactic in tactics:
        check_tactic(tactic)
    tip = prover.line.tip()
    alone = parses(prover, tip, [f"{tactic}." for tactic in tactics])
    wrapped = parses(prover, tip, [session._wrap(tactic, 5) for tactic in tactics])
    differ = [t for t, a, w in zip(tactics, alone, wrapped, strict=True) if a != w]
    assert differ == [] and sum(alone) > 0.9 * len(tactics)
