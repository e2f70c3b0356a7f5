"""A model generator's bad settings stop ``search`` on one line, before any work: the
results file is left as it was, even with ``--overwrite`` (real tiny checkpoints)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tests.generate.conftest import TinyModels

from proofsearch.cli import main

THEOREM = {"name": "t", "statement": "Theorem t : True.", "header": ""}
EARLIER = '{"name": "t", "status": "proved", "proof": ["exact I"]}\n'


def _search(tmp_path: Path, *options: str) -> tuple[int, Path]:
    theorems = tmp_path / "thms.jsonl"
    theorems.write_text(json.dumps(THEOREM) + "\n")
    results = tmp_path / "r.jsonl"
    results.write_text(EARLIER)
    code = main(["search", str(theorems), "-o", str(results), "--overwrite", "--quiet", *options])
    return code, results


BAD = [
    ("strategi=beam", "--gen-option strategi=beam: generator hf has no option 'strategi'; "),
    ("max_new_tokens=abc", "--gen-option max_new_tokens=abc: expected an integer"),
    ("strategy=greedy", "--gen-option strategy=greedy: expected one of 'beam', 'sample'"),
    ("max_new_tokens=100000", "max_new_tokens=100000 leaves no room for a prompt"),
    ("dtype=float8", "unknown dtype 'float8' (known: auto, float32"),
]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        *((["--gen-option", option], message) for option, message in BAD),
        (
            ["--base-url", "http://127.0.0.1:1/v1"],
            "--base-url http://127.0.0.1:1/v1: generator hf has no option 'base_url'",
        ),
    ],
)
def test_bad_hf_options_are_one_line_before_any_work(
    tiny_models: TinyModels,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    options: list[str],
    message: str,
) -> None:
    model = ["--generator", "hf", "--model", str(tiny_models.gpt2)]
    code, results = _search(tmp_path, *model, *options)
    (line,) = [x for x in capsys.readouterr().err.splitlines() if x.strip()]
    assert code == 2 and line.startswith("proofsearch search: ") and message in line
    assert results.read_text() == EARLIER  # --overwrite did not empty it for nothing


def test_a_checkpoint_without_its_tokenizer_is_named(
    tiny_models: TinyModels, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bare = tmp_path / "bare"
    bare.mkdir()
    for name in ("config.json", "model.safetensors", "generation_config.json"):
        if (tiny_models.gpt2 / name).exists():
            shutil.copy(tiny_models.gpt2 / name, bare / name)
    code, _ = _search(tmp_path, "--generator", "hf", "--model", str(bare))
    err = capsys.readouterr().err
    assert code == 2 and "no tokenizer files" in err and "tokenizer.save_pretrained" in err
    code, _ = _search(tmp_path, "--generator", "hf", "--model", str(tmp_path / "none"))
    assert code == 2 and "model directory" in capsys.readouterr().err
    # Config and tokenizer but no weights: a traceback from transformers (one worker),
    # a 2,000-character line after five restarts (Ray).
    unweighted = tmp_path / "unweighted"
    shutil.copytree(tiny_models.gpt2, unweighted)
    (unweighted / "model.safetensors").unlink()
    code, _ = _search(tmp_path, "--generator", "hf", "--model", str(unweighted))
    (line,) = [x for x in capsys.readouterr().err.splitlines() if x.strip()]
    assert code == 2 and "no weights (model.safetensors" in line


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("timeout=-1", "(--gen-option timeout=-1): timeouts must be positive"),
        ("n=0", "(--gen-option n=0): n must be positive or None, got 0"),
        ("template=nogoals", "(--gen-option template=nogoals): a prompt template needs exactly"),
    ],
)
def test_bad_openai_values_are_one_line_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, message: str
) -> None:
    """Their names and types were checked, their values only when the generator was
    built inside the run: a traceback, exit 1."""
    url = ["--generator", "openai", "--base-url", "http://127.0.0.1:9/v1"]
    code, results = _search(tmp_path, *url, "--gen-option", option)
    (line,) = [x for x in capsys.readouterr().err.splitlines() if x.strip()]
    assert code == 2 and message in line
    assert line.startswith("proofsearch search: generator openai ")
    assert results.read_text() == EARLIER


def test_one_stop_string_is_not_the_list_of_its_letters() -> None:
    from proofsearch.generate.openai import OpenAITacticGenerator

    assert OpenAITacticGenerator("http://127.0.0.1:9/v1", stop="lia").stop == ["lia"]
    assert OpenAITacticGenerator("http://127.0.0.1:9/v1", stop=["\n", ";"]).stop == ["\n", ";"]


def test_a_model_for_a_generator_that_takes_none_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--model`` without ``--generator hf`` ran the portfolio, silently."""
    code, results = _search(tmp_path, "--model", str(tmp_path / "ckpt"))
    err = capsys.readouterr().err
    assert code == 2 and "--model: generator portfolio takes no model; give --generator hf" in err
    assert results.read_text() == EARLIER


@pytest.mark.ray
def test_gpus_the_cluster_does_not_have_stop_the_run(
    tiny_models: TinyModels, tmp_path: Path
) -> None:
    """``--num-gpus 1`` where Ray sees no GPU: every worker was infeasible, and the run
    waited without a word, forever. (A process of its own: this one may hold a Ray
    session of the distributed tests, which fakes GPUs.)"""
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT

    theorems = tmp_path / "thms.jsonl"
    theorems.write_text(json.dumps(THEOREM) + "\n")
    command = [
        sys.executable, "-m", "proofsearch.cli", "search", str(theorems),
        "-o", str(tmp_path / "r.jsonl"), "--quiet", "--generator", "hf",
        "--model", str(tiny_models.gpt2), "--workers", "2", "--num-gpus", "1",
    ]  # fmt: skip
    env = {
        **os.environ,
        "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}",
        "CUDA_VISIBLE_DEVICES": "",
    }
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    err = " ".join(done.stderr.split())
    assert done.returncode == 1 and "--num-gpus 1: the Ray cluster has 0 GPU(s)" in err, err


def test_a_small_models_default_output_fits_its_position_table(tiny_models: TinyModels) -> None:
    """512 new tokens (ReProver's) left no room for a prompt in a tiny GPT-2's table: every
    run with the defaults failed. The default is now half the table when that is less."""
    from transformers import AutoConfig

    from proofsearch.generate.hf import HFTacticGenerator

    positions = AutoConfig.from_pretrained(tiny_models.gpt2).n_positions
    generator = HFTacticGenerator(tiny_models.gpt2, device="cpu")
    assert generator.max_new_tokens == min(512, positions // 2)
    assert generator.max_input_tokens <= positions - generator.max_new_tokens
    assert HFTacticGenerator(tiny_models.t5, device="cpu").max_new_tokens == 512
