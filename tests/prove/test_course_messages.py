"""What `prove` says to a course's student (audit 54): a file named with no hole left
while others have some, an unterminated comment, a bare folder whose files say
`From LF Require …` (real Coq for the last)."""

from __future__ import annotations

from pathlib import Path

import pytest

from proofsearch.cli import main

pytestmark = pytest.mark.usefixtures("cache")  # a cache of each test's own

BASICS = "Lemma one : 1 = 1.\nProof. reflexivity. Qed.\n"
LISTS = "From LF Require Import Basics.\nLemma two : 2 = 2.\nProof.\nAdmitted.\n"


def course(tmp_path: Path, project_file: bool = True) -> Path:
    folder = tmp_path / "course"
    folder.mkdir()
    if project_file:
        (folder / "_CoqProject").write_text("-Q . LF\nBasics.v\nLists.v\n")
    (folder / "Basics.v").write_text(BASICS)
    (folder / "Lists.v").write_text(LISTS)
    return folder


def test_a_file_with_no_hole_left_names_the_files_that_have_some(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: "no proof ends in Admitted (Basics.v, Lists.v)", naming every file, although
    Lists.v still had a hole; `--list` said nothing at all."""
    folder = course(tmp_path)
    assert main(["prove", str(folder / "Basics.v"), "--no-library-trace"]) == 2
    err = capsys.readouterr().err
    assert "no proof of the files named ends in Admitted; 1 hole(s) are in the project's" in err
    assert "other files (Lists.v): give the project's folder, or those files" in err
    assert main(["prove", str(folder / "Basics.v"), "--list"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and "1 hole(s) are in the project's other files" in captured.err


def test_an_unterminated_comment_is_named_by_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = course(tmp_path)
    (folder / "Lists.v").write_text(LISTS + "(** **** Exercise (* open\nLemma three : 3 = 3.\n")
    assert main(["prove", str(folder), "--list"]) == 2
    err = capsys.readouterr().err
    assert "Lists.v:5: cannot be split into sentences: unterminated comment opened on line 5" in err


def test_a_bare_folder_that_names_itself_is_told_its_project_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: "check the -R/-Q/-I of --coq-arg or --coq-arg", not the fix."""
    folder = course(tmp_path, project_file=False)
    args = ["--generator", "tests.prove.stand_in:by_name", "--no-library-trace", "--quiet"]
    assert main(["prove", str(folder), *args]) == 1
    err = capsys.readouterr().err
    assert "Lists.v:1: the file does not compile: Cannot find a physical path" in err
    assert "the folder has no _CoqProject to say its files are LF.*: write one with the " in err
    assert "line -Q . LF" in err and "--coq-arg or --coq-arg" not in err


def test_the_summary_keeps_what_earlier_runs_filled_in_other_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A teacher grading after `prove course/B.v` saw only B.v in the summary and the
    report (audit 54): the other files' entries of the run before are kept, marked."""
    import json
    from types import SimpleNamespace

    from proofsearch.data.prove_report import prove_markdown

    folder = tmp_path / "two"
    folder.mkdir()
    (folder / "_CoqProject").write_text("-R . Two\nA.v\nB.v\n")
    (folder / "A.v").write_text("Lemma zero_zero : 0 = 0.\nProof.\nAdmitted.\n")
    (folder / "B.v").write_text("Lemma top_twice : 2 = 2.\nProof.\nAdmitted.\n")
    results = tmp_path / "r.jsonl"
    args = ["--generator", "tests.prove.stand_in:by_name", "--no-library-trace", "--quiet",
            "--output", str(results)]  # fmt: skip
    assert main(["prove", str(folder), *args, "--write"]) == 0
    (folder / "B.v").write_text("Lemma top_twice : 2 = 2.\nProof.\nreflexivity.\nQed.\n"
                                "Lemma top_twice' : 2 = 2.\nProof.\nAdmitted.\n")  # fmt: skip
    assert main(["prove", str(folder / "B.v"), *args]) == 0
    summary = json.loads((tmp_path / "r.jsonl.prove.json").read_text())
    assert summary["written"] is False
    earlier = summary["files"]["A.v"]
    assert earlier["earlier"] is True and earlier["written"] is True
    assert [item["name"] for item in earlier["filled"]] == ["zero_zero"]
    assert "earlier" not in summary["files"]["B.v"] and summary["files"]["B.v"]["written"] is False
    # B.v, searched again, keeps the proof the first run wrote into it (verification 56).
    assert [(i["name"], i.get("earlier")) for i in summary["files"]["B.v"]["filled"]] == [
        ("top_twice", True)
    ]
    markdown = prove_markdown([SimpleNamespace(path=results, name="r")])
    assert "### `A.v`: 1 filled, 0 left (an earlier run's: written)" in markdown
    assert "### `B.v`: 1 filled, 1 left\n" in markdown
    assert "- `top_twice` (line 1) (written by an earlier run; its line then):" in markdown
