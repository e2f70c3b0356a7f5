"""GPU check of the ``hf`` generator: scores on CUDA agree with the CPU, and batching pays.

Run by ``benchmarks/gpu_check.sh`` on a GPU machine (the project copied there, not
installed: ``PYTHONPATH=src``; nothing downloadable, so the test model is built here).
``--device cpu`` runs the same steps with small sizes, to test the script itself.

1. Builds a steered random T5 with ByT5's vocabulary (ReProver's architecture; larger
   than the unit tests' by default) and saves it like a real checkpoint.
2. Generates beam-search candidates on the CPU in float32: the reference.
3. Rescores those same token sequences on the device in float32 and bfloat16 and
   compares with the CPU scores. Tolerances: float32 ``1e-3 + 1e-4·tokens`` nats (GPU
   kernels sum in other orders; TF32 is off for matmuls by default); bfloat16
   ``0.05 + 0.02·tokens`` (8-bit mantissas in every activation).
4. Generates on the device in each dtype and checks the generator's own scores against
   a device forward pass in the same dtype (cached vs uncached arithmetic), with the
   same tolerances, and reports how many CPU top-1 tactics the device reproduced.
5. Throughput in the device's default dtype: one ``generate`` per request, then
   ``generate_batch`` with growing batch sizes; sequences/s and the speed-up.

Exit status 0 when every check passes. With ``--out DIR`` the results are also written
to ``DIR/gpu_check.json``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from proofsearch.generate.base import GenerationRequest
from proofsearch.generate.hf import Candidate, HFTacticGenerator
from proofsearch.theorem import Theorem

THEOREM = Theorem("check", "theorem check : True := by")
GOALS = [
    "n : ℕ\n⊢ n + 0 = n",
    "⊢ True",
    "a b c : ℕ\nh : a = b\n⊢ a + c = b + c",
    "p q : Prop\nhp : p\nhq : q\n⊢ p ∧ q",
    "xs ys : List ℕ\n⊢ (xs ++ ys).length = xs.length + ys.length",
    "f : ℕ → ℕ\nhf : ∀ x, f x = x\n⊢ f (f 2) = 2",
    "s : Set ℕ\nh : 3 ∈ s\n⊢ ∃ x, x ∈ s",
    "m n : ℕ\nh : m ≤ n\n⊢ m < n + 1",
]

TOLERANCE = {"float32": (1e-3, 1e-4), "bfloat16": (0.05, 0.02)}


def tiny_builders() -> Any:
    """``tests/support/tiny.py``, which builds the steered random checkpoints: test
    support, not shipped in the package, so imported from this checkout."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    return importlib.import_module("tests.support.tiny")


@dataclass
class Sizes:
    d_model: int
    layers: int
    heads: int
    d_ff: int
    requests: int
    n: int
    max_new_tokens: int
    batch_sizes: list[int]
    check_goals: int


SIZES = {
    # ~25M parameters: big enough that a GPU step is not pure launch overhead.
    "gpu": Sizes(512, 6, 8, 1024, 64, 8, 48, [1, 8, 32, 64], 8),
    "cpu": Sizes(32, 2, 4, 64, 8, 4, 12, [1, 4, 8], 4),
}


def tolerance(dtype: str, tokens: int) -> float:
    base, per_token = TOLERANCE[dtype]
    return base + per_token * tokens


def goals(count: int) -> list[str]:
    return [f"{GOALS[i % len(GOALS)]}\n-- {i}" for i in range(count)]


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def compare_rescoring(
    reference: list[list[Candidate]],
    cpu: HFTacticGenerator,
    device_gen: HFTacticGenerator,
    dtype: str,
    check_goals: list[str],
) -> dict[str, Any]:
    """CPU float32 scores vs the device's forward pass over the same token ids."""
    worst, worst_excess, count = 0.0, -math.inf, 0
    for goal, candidates in zip(check_goals, reference, strict=True):
        prompt = device_gen.prompt_ids(goal)
        assert prompt == cpu.prompt_ids(goal)
        scored = device_gen.score_ids([prompt] * len(candidates), [c.token_ids for c in candidates])
        for candidate, terms in zip(candidates, scored, strict=True):
            difference = abs(math.fsum(terms) - candidate.logprob)
            worst = max(worst, difference)
            worst_excess = max(
                worst_excess, difference - tolerance(dtype, len(candidate.token_ids))
            )
            count += 1
    return {"sequences": count, "max_abs_diff": worst, "ok": worst_excess <= 0}


def self_consistency(
    generator: HFTacticGenerator, dtype: str, check_goals: list[str], n: int
) -> tuple[dict[str, Any], list[list[Candidate]]]:
    """The generator's reported scores vs a forward pass in the same dtype."""
    answers = generator.candidates([GenerationRequest(g, THEOREM, n) for g in check_goals])
    worst, worst_excess = 0.0, -math.inf
    for goal, candidates in zip(check_goals, answers, strict=True):
        prompt = generator.prompt_ids(goal)
        scored = generator.score_ids([prompt] * len(candidates), [c.token_ids for c in candidates])
        for candidate, terms in zip(candidates, scored, strict=True):
            difference = abs(math.fsum(terms) - candidate.logprob)
            worst = max(worst, difference)
            worst_excess = max(
                worst_excess, difference - tolerance(dtype, len(candidate.token_ids))
            )
    return {"max_abs_diff": worst, "ok": worst_excess <= 0}, answers


def throughput(generator: HFTacticGenerator, sizes: Sizes) -> list[dict[str, Any]]:
    requests = [GenerationRequest(g, THEOREM, sizes.n) for g in goals(sizes.requests)]
    sequences = sum(r.n for r in requests)
    generator.generate_batch(requests[: max(sizes.batch_sizes)])  # warm-up
    sync(generator.device)
    rows = []
    start = time.perf_counter()
    for request in requests:
        generator.generate(request.goals, request.theorem, request.n)
    sync(generator.device)
    rows.append(("one-by-one", time.perf_counter() - start))
    for size in sizes.batch_sizes:
        start = time.perf_counter()
        for begin in range(0, len(requests), size):
            generator.generate_batch(requests[begin : begin + size])
        sync(generator.device)
        rows.append((f"batch={size}", time.perf_counter() - start))
    base = rows[0][1]
    return [
        {
            "mode": mode,
            "seconds": seconds,
            "requests_per_s": len(requests) / seconds,
            "sequences_per_s": sequences / seconds,
            "speedup": base / seconds,
        }
        for mode, seconds in rows
    ]


def check_model(
    path: Path, device: torch.device, dtypes: list[str], sizes: Sizes
) -> dict[str, Any]:
    """Agreement checks in each dtype, batched-vs-single agreement, and throughput."""
    options: dict[str, Any] = {"max_new_tokens": sizes.max_new_tokens}
    check = goals(sizes.check_goals)
    cpu = HFTacticGenerator(path, device="cpu", dtype="float32", **options)
    reference = cpu.candidates([GenerationRequest(g, THEOREM, sizes.n) for g in check])
    result: dict[str, Any] = {"kind": "seq2seq" if cpu.is_encoder_decoder else "causal"}
    result["cpu_self"], _ = self_consistency(cpu, "float32", check, sizes.n)
    checks: dict[str, Any] = {}
    for dtype in dtypes:
        generator = HFTacticGenerator(path, device=str(device), dtype=dtype, **options)
        rescored = compare_rescoring(reference, cpu, generator, dtype, check)
        own, answers = self_consistency(generator, dtype, check, sizes.n)
        same_top = sum(
            bool(a) and bool(r) and a[0].token_ids == r[0].token_ids
            for a, r in zip(answers, reference, strict=True)
        )
        # Batched and per-request answers on the device (informative: on a GPU, kernels
        # for other batch sizes may round differently and flip near-ties).
        single = [generator.candidates([GenerationRequest(g, THEOREM, sizes.n)])[0] for g in check]
        same_batch = sum(
            [c.token_ids for c in a] == [c.token_ids for c in b]
            for a, b in zip(answers, single, strict=True)
        )
        checks[dtype] = {
            "rescore_vs_cpu": rescored,
            "generate_vs_forward": own,
            "top1_same_as_cpu": f"{same_top}/{len(check)}",
            "batch_same_as_single": f"{same_batch}/{len(check)}",
        }
        generator.close()
    result["checks"] = checks
    fast = HFTacticGenerator(path, device=str(device), dtype="auto", **options)
    result["throughput_dtype"] = str(fast.dtype).removeprefix("torch.")
    result["throughput"] = throughput(fast, sizes)
    fast.close()
    result["ok"] = result["cpu_self"]["ok"] and all(
        c["rescore_vs_cpu"]["ok"] and c["generate_vs_forward"]["ok"] for c in checks.values()
    )
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="GPU check of the hf generator")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--sizes", choices=sorted(SIZES), help="default: by device")
    parser.add_argument("--out", help="write gpu_check.json into this folder")
    args = parser.parse_args(argv)
    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        print("CUDA is not available to torch", file=sys.stderr)
        return 2
    sizes = SIZES[args.sizes or ("gpu" if device.type == "cuda" else "cpu")]
    started = time.perf_counter()
    report: dict[str, Any] = {
        "torch": torch.__version__,
        "device": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu",
        "sizes": sizes.__dict__,
    }
    # One CPU thread: the CPU reference is small, and on a shared or small CPU OpenMP
    # threads spin against each other (20-40x slower measured on a busy 2-core machine).
    torch.set_num_threads(1)
    dtypes = ["float32", "bfloat16"]
    if device.type == "cuda" and not torch.cuda.is_bf16_supported():
        dtypes = ["float32"]

    tiny = tiny_builders()

    def t5(where: Path) -> Path:  # ReProver's architecture: encoder-decoder, right padding
        return Path(
            tiny.build_t5(
                where,
                d_model=sizes.d_model,
                layers=sizes.layers,
                heads=sizes.heads,
                d_ff=sizes.d_ff,
            )
        )

    def gpt2(where: Path) -> Path:  # a decoder-only model: left padding, newline stops
        return Path(
            tiny.build_gpt2_bytes(
                where, d_model=sizes.d_model, layers=sizes.layers, heads=sizes.heads
            )
        )

    builders: dict[str, Callable[[Path], Path]] = {"t5": t5, "gpt2": gpt2}
    report["models"] = {}
    ok = True
    with tempfile.TemporaryDirectory() as scratch:
        for name, build in builders.items():
            path = build(Path(scratch) / name)
            result = check_model(path, device, dtypes, sizes)
            report["models"][name] = result
            ok = ok and result["ok"]
    report["seconds"] = time.perf_counter() - started
    report["ok"] = ok
    print_report(report)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "gpu_check.json").write_text(json.dumps(report, indent=2))
    return 0 if ok else 1


def print_report(report: dict[str, Any]) -> None:
    sizes = report["sizes"]
    print(f"device: {report['device']}   torch {report['torch']}")
    print(
        f"models: d_model={sizes['d_model']} layers={sizes['layers']} (ByT5 byte vocabulary); "
        f"n={sizes['n']} beams, max_new_tokens={sizes['max_new_tokens']}"
    )
    for name, result in report["models"].items():
        print()
        print(f"== {name} ({result['kind']}): log-probability agreement, nats")
        print(f"{'check':<36} {'max |diff|':>11} {'tolerance':>20} {'ok':>4}")
        rows = [("cpu float32 generate vs forward", "float32", result["cpu_self"])]
        for dtype, check in result["checks"].items():
            rows.append((f"{dtype} rescore vs cpu float32", dtype, check["rescore_vs_cpu"]))
            rows.append((f"{dtype} generate vs forward", dtype, check["generate_vs_forward"]))
        for label, dtype, row in rows:
            base, per_token = TOLERANCE[dtype]
            bound = f"{base:g} + {per_token:g}/token"
            verdict = "yes" if row["ok"] else "NO"
            print(f"{label:<36} {row['max_abs_diff']:>11.2e} {bound:>20} {verdict:>4}")
        for dtype, check in result["checks"].items():
            print(
                f"{dtype}: top-1 same as cpu {check['top1_same_as_cpu']}, "
                f"batched same as single {check['batch_same_as_single']}"
            )
        print()
        print(f"throughput ({result['throughput_dtype']}, {sizes['requests']} requests)")
        print(f"{'mode':<12} {'seconds':>9} {'req/s':>9} {'seq/s':>10} {'speed-up':>9}")
        for row in result["throughput"]:
            print(
                f"{row['mode']:<12} {row['seconds']:>9.3f} {row['requests_per_s']:>9.2f} "
                f"{row['sequences_per_s']:>10.1f} {row['speedup']:>8.2f}x"
            )
    print()
    print(f"{'PASS' if report['ok'] else 'FAIL'} in {report['seconds']:.1f} s")


if __name__ == "__main__":
    sys.exit(main())
