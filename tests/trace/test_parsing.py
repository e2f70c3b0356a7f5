"""Reading Coq's printed text: hypotheses, ``About`` answers, announcements, _CoqProject."""

from __future__ import annotations

from pathlib import Path

import pytest

from proofsearch.env.coq.vernac import command_of
from proofsearch.trace.declarations import announced_names, constructor_candidates, parse_about
from proofsearch.trace.goals import hypothesis
from proofsearch.trace.sources import SourceError, coqproject


@pytest.mark.parametrize(
    ("text", "names", "body", "type_"),
    [
        ("x, y : nat", ["x", "y"], None, "nat"),
        ("H : forall x : nat, x = x", ["H"], None, "forall x : nat, x = x"),
        ("n := S m : nat", ["n"], "S m", "nat"),
        ("p := (3 : nat) : nat", ["p"], "(3 : nat)", "nat"),
        ("f := fun x : nat => x : nat -> nat", ["f"], "fun x : nat => x", "nat -> nat"),
        ("g := match n with | 0 => 1 | S k => k end : nat", ["g"],
         "match n with | 0 => 1 | S k => k end", "nat"),
    ],
)  # fmt: skip
def test_hypotheses_split_and_render_back(
    text: str, names: list[str], body: str | None, type_: str
) -> None:
    parsed = hypothesis(text)
    assert (parsed.names, parsed.body, parsed.type) == (names, body, type_)
    assert parsed.render() == text


def test_about_answers() -> None:
    about = parse_about(
        "Permutation_app_tail :\nforall [l l'] (tl : list A),\nPermutation l l'\n\n"
        "Permutation_app_tail is not universe polymorphic\nExpands to: Constant\n"
        "Coq.Sorting.Permutation.Permutation_app_tail"
    )
    assert about is not None
    assert about.what == "Constant"
    assert about.kernel_name == "Coq.Sorting.Permutation.Permutation_app_tail"
    assert about.statement == "forall [l l'] (tl : list A), Permutation l l'"
    polymorphic = parse_about("pid@{u} : forall {A : Type}, A -> A\n\nExpands to: Constant Top.pid")
    assert polymorphic is not None and polymorphic.statement == "forall {A : Type}, A -> A"
    assert parse_about("Nat.foo not a defined object.") is None


def test_announcements_and_constructors() -> None:
    messages = [
        "t is defined",
        "t_rect is defined",
        "f, g are recursively defined",
        "Module M is defined",
        "x is declared",
    ]
    assert announced_names(messages) == ["t", "t_rect", "f", "g", "x"]
    printed = "Inductive t : Set :=  A : t | B : nat -> t.\n\nArguments B n%nat_scope"
    assert constructor_candidates(printed) == ["A", "B"]
    record = "Record R : Set := mkR { f1 : nat;  f2 : bool }."
    assert constructor_candidates(record) == ["mkR"]


def test_command_ident() -> None:
    assert command_of("Lemma foo : True.").ident == "foo"
    assert command_of("#[global] Instance foo : C nat.").ident == "foo"
    assert command_of("Instance : C nat.").ident == ""
    assert command_of("Local Definition (* x *) bar := 1.").ident == "bar"


def test_coqproject_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no _CoqProject"):
        coqproject(tmp_path)
    (tmp_path / "_CoqProject").write_text("-R missing Lib\n")
    with pytest.raises(SourceError, match=r"_CoqProject: -R missing: no such folder"):
        coqproject(tmp_path)
    (tmp_path / "theories").mkdir()
    (tmp_path / "_CoqProject").write_text("-R theories Lib\ntheories/Gone.v\n")
    with pytest.raises(SourceError, match=r"theories/Gone.v: no such file"):
        coqproject(tmp_path)
