"""Tactics files: only ``\\n`` and ``\\r\\n`` end a line (a lone ``\\r`` is part of the line)."""

from __future__ import annotations

from pathlib import Path

import pytest

from proofsearch.generate.portfolio import (
    TacticsFileError,
    default_tactics,
    load_tactics,
    split_lines,
)


def test_a_lone_carriage_return_does_not_end_a_line(tmp_path: Path) -> None:
    path = tmp_path / "tactics.txt"
    path.write_bytes(b"auto\rintros\t-0.5\r\nsplit\n\x0ctrivial\n")
    tactics = load_tactics(path)
    assert [(s.tactic, s.logprob) for s in tactics] == [
        ("auto\rintros", -0.5),
        ("split", -0.1),
        ("trivial", -0.2),  # a form feed is blank, not a line end
    ]


def test_line_numbers_in_errors_count_only_real_lines(tmp_path: Path) -> None:
    path = tmp_path / "tactics.txt"
    path.write_bytes(b"auto\rintros\r\nsplit\t1\n")
    with pytest.raises(TacticsFileError, match=r"tactics\.txt:2: logprob: must be"):
        load_tactics(path)


def test_split_lines() -> None:
    assert split_lines("a\rb\r\nc\n\u2028d") == ["a\rb", "c", "\u2028d"]


def test_the_bundled_portfolios_still_load() -> None:
    assert default_tactics("coq") and default_tactics("lean")
