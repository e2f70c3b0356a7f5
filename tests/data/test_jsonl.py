"""The one JSONL reader: blank lines skipped, lines numbered from 1, bad lines named."""

from __future__ import annotations

from pathlib import Path

import pytest

from proofsearch.data.jsonl import json_lines, read_json_lines
from proofsearch.distributed.store import read_results


def test_lines_are_numbered_and_bad_ones_explained() -> None:
    lines = ['{"a": 1}\n', "\n", "   \n", "{not json\n", b'"bytes"\n', b"\xff\n"]
    read = list(json_lines(lines, "f.jsonl"))
    assert [line.number for line in read] == [1, 4, 5, 6]
    assert read[0].value == {"a": 1} and read[0].error is None
    assert read[1].where == "f.jsonl:4" and read[1].value is None
    assert read[1].problem(read[1].invalid).startswith("f.jsonl:4: invalid JSON: Expecting")
    assert "line 1 column" not in read[1].invalid  # the position inside the line is noise
    assert read[2].value == "bytes"
    assert isinstance(read[3].error, UnicodeDecodeError)
    assert read[3].invalid.startswith("invalid JSON: 'utf-8' codec can't decode")

    # A string cut by a raw line break or tab: the sentence ended "… character at".
    (torn,) = json_lines(['{"name": "a\tb"}\n'], "f.jsonl")
    assert torn.invalid == (
        "invalid JSON: Invalid control character inside a string (a raw tab or line break: "
        "write it \\t or \\n)"
    )


def test_an_unreadable_file_raises_the_callers_error(tmp_path: Path) -> None:
    class Unreadable(Exception):
        pass

    missing = tmp_path / "missing.jsonl"
    with pytest.raises(Unreadable, match=r"missing\.jsonl: cannot read: No such file"):
        list(read_json_lines(missing, Unreadable))


def test_results_file_with_bytes_that_are_no_utf8_is_reported_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(b'{"name": "a", "status": "proved"}\n\xff\xfe\n{"name": "b"}\n')
    existing = read_results(path)
    assert list(existing.records) == ["a"]
    assert [p.split(": ")[0] for p in existing.problems] == [f"{path}:2", f"{path}:3"]
    assert not existing.torn_tail


def test_a_lone_surrogate_escape_is_a_bad_line_and_a_pair_is_a_character() -> None:
    """``"\\ud800"`` alone decodes to a string no file or process can be given: in a
    results file it crashed ``check``, ``export`` and ``report`` with a traceback."""
    lines = ['{"proof": ["exact I (* \\ud800 *)"]}\n', '{"t": "\\ud83d\\ude00 \\u00e9"}\n']
    lone, pair = json_lines(lines, "r.jsonl")
    assert lone.value is None
    assert lone.invalid == "invalid JSON: a lone surrogate escape (\\ud800-\\udfff) is no character"
    assert pair.error is None and pair.value == {"t": "\U0001f600 é"}
