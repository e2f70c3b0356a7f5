"""``proofsearch report``: every output exists, names every run, and the PNGs are images."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from proofsearch.cli import main
from proofsearch.data.report import PLOTS, load_run, run_names

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def record(name: str, status: str, seconds: float, **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "status": status,
        "proof": ["auto"] if status == "proved" else None,
        "checked": status == "proved",
        "error": "boom <script>" if status == "error" else None,
        "actor_time": 0.1,
        "environment_time": seconds / 2,
        "check_time": 0.2 if status == "proved" else 0.0,
        "total_time": seconds,
        "num_total_nodes": 4,
        "num_searched_nodes": 3,
        "num_tactic_applications": 12,
        **extra,
    }


def write(path: Path, lines: list[Any]) -> Path:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    return path


@pytest.fixture
def two_runs(tmp_path: Path) -> tuple[Path, Path]:
    search = write(
        tmp_path / "search.jsonl",
        [
            record("A.v:one", "proved", 1.5, part="A"),
            record("A.v:two", "failed", 3.0),
            record("B.v:three|pipe", "open", 9.0),
            record("B.v:four", "error", 0.1),
        ],
    )
    hammer = write(
        tmp_path / "hammer.jsonl",
        [
            record("A.v:one", "proved", 0.5),
            record("A.v:two", "proved", 2.5),
            "{not json",
            {"name": "B.v:three|pipe", "status": "maybe"},
            record("B.v:three|pipe", "failed", 4.0),
        ],
    )
    return search, hammer


def test_report_writes_everything(
    two_runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report"
    code = main(["report", *map(str, two_runs), "--out", str(out), "--stdlib-anchors"])
    assert code == 1  # the report is written, but two lines were unreadable
    err = capsys.readouterr().err
    assert f"{two_runs[1]}:3: invalid JSON" in err
    assert f"{two_runs[1]}:4: field 'status'" in err
    html = (out / "index.html").read_text()
    for name in ("search", "hammer", "A.v:one", "B.v:three|pipe", "CoqHammer (published"):
        assert name in html
    assert "<script>" not in html  # error messages are escaped
    markdown = (out / "report.md").read_text()
    assert "| search | 4 | 1 | 25.0% |" in markdown
    assert "| hammer | 3 | 2 | 66.7% |" in markdown
    assert "B.v:three\\|pipe" in markdown
    # An error says why in the Markdown too (the HTML's cell has it as a tooltip).
    assert "## Errors (1)\n\n| run | theorem | why |" in markdown
    assert "| search | `B.v:four` | boom <script> |" in markdown
    summary = json.loads((out / "summary.json").read_text())
    assert [run["name"] for run in summary["runs"]] == ["search", "hammer"]
    assert summary["runs"][0]["mean_expansions"] == 3.0
    for plot in PLOTS:
        assert f'src="{plot}"' in html
        check_png(out / plot)


def check_png(path: Path) -> None:
    import matplotlib.image
    from PIL import Image

    assert path.read_bytes()[:8] == PNG_SIGNATURE
    with Image.open(path) as image:
        image.verify()
    with Image.open(path) as image:
        assert image.format == "PNG" and image.size[0] > 300 and image.size[1] > 100
    assert matplotlib.image.imread(str(path)).ndim == 3


def test_names_and_clean_exit(two_runs: tuple[Path, Path], tmp_path: Path) -> None:
    out = tmp_path / "one"
    assert main(["report", str(two_runs[0]), "--out", str(out), "--name", "best-first"]) == 0
    assert "best-first" in (out / "index.html").read_text()


def test_run_names_are_unique(tmp_path: Path) -> None:
    paths = [tmp_path / "a" / "results.jsonl", tmp_path / "b" / "results.jsonl"]
    assert run_names(paths) == ["a/results", "b/results"]
    assert run_names(paths, ["mine"]) == ["mine", "results"]


def test_last_line_of_a_theorem_counts(tmp_path: Path) -> None:
    path = write(tmp_path / "r.jsonl", [record("x", "error", 1.0), record("x", "proved", 2.0)])
    run = load_run(path)
    assert run.duplicates == 1 and run.proved == 1 and run.total == 1


def test_unreadable_file_is_a_usage_error(tmp_path: Path) -> None:
    assert main(["report", str(tmp_path / "missing.jsonl"), "--out", str(tmp_path)]) == 2


def test_empty_runs_still_plot(tmp_path: Path) -> None:
    path = write(tmp_path / "none.jsonl", [record("x", "failed", 1.0)])
    assert main(["report", str(path), "--out", str(tmp_path / "out")]) == 0
    for plot in PLOTS:
        check_png(tmp_path / "out" / plot)


def _runs(tmp_path: Path, *rows: list[dict[str, Any]]) -> list[Any]:
    return [load_run(write(tmp_path / f"run{i}.jsonl", lines)) for i, lines in enumerate(rows)]


def _labels(axis: Any) -> list[str]:
    return [label.get_text() for label in axis.get_ticklabels() if label.get_text()]


def _visible_ticks(axis: Any) -> list[str]:
    """The labelled ticks inside the axis's limits (matplotlib also keeps some outside)."""
    low, high = sorted(axis.get_view_interval())
    pairs = zip(axis.get_majorticklocs(), axis.get_majorticklabels(), strict=True)
    return [label.get_text() for at, label in pairs if low <= at <= high and label.get_text()]


@pytest.mark.parametrize("seconds", [[0.3, 0.5, 2.5], [0.29, 0.3, 0.31], [40.0]])
def test_the_cactus_x_axis_has_several_labelled_ticks(tmp_path: Path, seconds: list[float]) -> None:
    """Times within one decade showed a single labelled tick ("1") before."""
    from proofsearch.data.report import cactus_figure

    run = [record(f"t{i}", "proved", t) for i, t in enumerate(seconds)]
    figure = cactus_figure(_runs(tmp_path, run))
    figure.canvas.draw()
    assert len(_visible_ticks(figure.axes[0].xaxis)) >= 2, _labels(figure.axes[0].xaxis)


def test_the_times_plot_has_no_empty_column_and_its_legend_covers_no_bar(
    tmp_path: Path,
) -> None:
    from proofsearch.data.report import times_figure

    all_proved = [record("a", "proved", 1.0), record("b", "proved", 2.0)]
    some = [record("a", "proved", 1.0), record("b", "failed", 3.0)]
    figure = times_figure(_runs(tmp_path, all_proved, some))
    figure.canvas.draw()
    boxes, bars = figure.axes
    assert _labels(boxes.xaxis) == ["run0\nproved", "run1\nproved", "run1\nnot proved"]
    legend = bars.get_legend().get_window_extent()
    for patch in bars.patches:
        assert not legend.overlaps(patch.get_window_extent()), "the legend covers a bar"


def test_report_md_has_the_mean_proof_length_and_both_show_the_proofs(tmp_path: Path) -> None:
    lines = [
        {**record("a", "proved", 1.0), "proof": ["intros n", "induction n; simpl; auto"]},
        {**record("b", "proved", 1.0), "proof": ["exact I"], "checked": False},
        record("c", "failed", 1.0),
    ]
    path = write(tmp_path / "r.jsonl", lines)
    out = tmp_path / "out"
    assert main(["report", str(path), "--out", str(out)]) == 0
    markdown = (out / "report.md").read_text()
    header, _, row = markdown.split("## Runs side by side")[1].strip().splitlines()[:3]
    columns = [c.strip() for c in header.strip("|").split("|")]
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[columns.index("mean proof length")] == "1.5"
    assert "```\nintros n\ninduction n; simpl; auto\n```" in markdown
    assert "r (not checked):" in markdown
    html = (out / "index.html").read_text()
    assert '<pre class="proof">intros n\ninduction n; simpl; auto\n</pre>' in html


def test_a_theorem_file_is_refused_before_any_report(tmp_path: Path, capsys: Any) -> None:
    theorems = tmp_path / "theorems.jsonl"
    theorems.write_text('{"name": "t", "statement": "Theorem t : True.", "header": ""}\n')
    out = tmp_path / "out"
    assert main(["report", str(theorems), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "a theorem file, not a results file" in err and str(theorems) in err
    assert not out.exists()


def test_a_file_without_one_valid_line_is_refused(tmp_path: Path, capsys: Any) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"name": "t", "status": "maybe"}\n')
    assert main(["report", str(bad), "--out", str(tmp_path / "out")]) == 2
    assert "no valid results line" in capsys.readouterr().err


def test_runs_over_different_theorems_are_said(tmp_path: Path, capsys: Any) -> None:
    first = write(tmp_path / "a.jsonl", [record("x", "proved", 1.0), record("y", "failed", 1.0)])
    second = write(tmp_path / "b.jsonl", [record("x", "proved", 1.0)])
    assert main(["report", str(first), str(second), "--out", str(tmp_path / "out")]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "the runs cover different theorems (a 2, b 1; 1 in common)" in err
    assert main(["report", str(first), str(first), "--out", str(tmp_path / "same")]) == 0
    assert "different theorems" not in capsys.readouterr().err


def test_a_prove_runs_section_writes_blocks_as_the_file_does_and_what_was_not_searched(
    tmp_path: Path,
) -> None:
    """A begun proof's part is a block: it read ``{ revert n H. lia. }.`` (an audit), and
    the Admitted proofs that are no holes were missing from the report."""
    from types import SimpleNamespace

    from proofsearch.data.prove_report import prove_html, prove_markdown

    results = tmp_path / "r.jsonl"
    results.write_text("")
    filled = {"name": "half", "line": 4, "proof": ["intros n", "{ revert n H. lia. }"]}
    skipped = {"name": "f", "line": 9, "reason": "a Fixpoint is not a hole"}
    record = {"written": False, "files": {"A.v": {"filled": [filled], "left": [],
                                                  "not_searched": [skipped]}}}  # fmt: skip
    (tmp_path / "r.jsonl.prove.json").write_text(json.dumps(record))
    run = SimpleNamespace(path=results, name="r")
    markdown = prove_markdown([run])
    assert "  intros n.\n  { revert n H. lia. }\n" in markdown
    assert "Not searched:\n\n- `f` (line 9): a Fixpoint is not a hole\n" in markdown
    page = prove_html([run])
    assert "{ revert n H. lia. }</pre>" in page and "not searched: a Fixpoint" in page


def test_the_report_says_which_settings_each_run_used(tmp_path: Path) -> None:
    """A report comparing a model with the default named the runs only by their files
    (audit 43-a): the settings recorded beside each results file are shown."""
    from proofsearch.data.run_settings import record_run

    model = write(tmp_path / "model.jsonl", [record("a", "proved", 1.0)])
    default = write(tmp_path / "default.jsonl", [record("a", "failed", 2.0)])
    bare = write(tmp_path / "bare.jsonl", [record("a", "open", 3.0)])
    record_run(
        model,
        {"prover": "coq", "generator": "openai", "search": {"timeout": 15.0},
         "generator_options": {"model": "mine", "base_url": "http://h/v1", "n": 8}},
        resumed=False,
    )  # fmt: skip
    record_run(
        default,
        {"prover": "coq", "generator": "knn-portfolio", "search": {"timeout": 20.0},
         "generator_options": {"index": ["/a", "/b"], "prover": "coq"}},
        resumed=False,
    )  # fmt: skip
    out = tmp_path / "out"
    assert main(["report", str(model), str(default), str(bare), "--out", str(out)]) == 0
    markdown = (out / "report.md").read_text()
    assert "| model | coq | openai | 15.0 | mine | 0 | base_url=http://h/v1, n=8 |" in markdown
    assert "| default | coq | knn-portfolio | 20.0 |  | 2 |  |" in markdown
    assert "| bare | | | | | | (no settings recorded) |" in markdown
    summary = json.loads((out / "summary.json").read_text())
    assert [run["settings"] and run["settings"]["generator"] for run in summary["runs"]] == [
        "openai", "knn-portfolio", None,
    ]  # fmt: skip
    assert "<td>knn-portfolio</td>" in (out / "index.html").read_text()
