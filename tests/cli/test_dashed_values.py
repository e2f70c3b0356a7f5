"""`--coq-arg -R --coq-arg DIR --coq-arg Lib`, spaced as the README words it (audit 55:
argparse answered "expected one argument" and only `--coq-arg=-R` worked)."""

from __future__ import annotations

from pathlib import Path

import pytest

from proofsearch.cli import _joined_dashed_values, build_parser, main


def test_a_coq_option_after_coq_arg_is_its_value() -> None:
    words = ["search", "t.jsonl", "--coq-arg", "-R", "--coq-arg", "dir", "--coq-arg", "-noinit"]
    args, extra = build_parser().parse_known_args(_joined_dashed_values(words))
    assert extra == [] and args.coq_arg == ["-R", "dir", "-noinit"]
    # A proofsearch option after it stays an option (and its missing value is said).
    assert _joined_dashed_values(["--coq-arg", "--timeout", "5"]) == ["--coq-arg", "--timeout", "5"]


def test_prove_lists_holes_with_spaced_coq_args(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "loose"
    folder.mkdir()
    (folder / "A.v").write_text("Lemma a : True.\nProof.\nAdmitted.\n")
    argv = ["prove", str(folder / "A.v"), "--coq-arg", "-Q", "--coq-arg", str(folder),
            "--coq-arg", "Mine", "--list"]  # fmt: skip
    assert main(argv) == 0
    assert capsys.readouterr().out.splitlines() == [f"{folder / 'A.v'}:1 a"]
