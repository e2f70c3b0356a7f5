"""Throughput of the ``hf`` generator: one ``generate`` per request vs ``generate_batch``.

In-process, it measures what batching requests into one ``generate`` call buys. With
``--ray`` it also measures the arrangement built on it: 1 and 2 prover-side clients (each
with one request in flight, as a searching prover actor has) sharing one
``GeneratorActor``, batched (a 20 ms window, up to 32 requests) and unbatched (batches
of one), in the same run.

    python benchmarks/generator_throughput.py                  # tiny T5, CPU
    python benchmarks/generator_throughput.py --ray            # inside a network namespace
    python benchmarks/generator_throughput.py --model DIR --device cuda

Without ``--model`` a tiny steered T5 (ReProver's architecture, ByT5 vocabulary) is built
in a temporary directory; its figures show the overhead structure, not a real model's.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path

from proofsearch.generate.base import GenerationRequest, TacticGenerator
from proofsearch.theorem import Theorem

THEOREM = Theorem("bench", "theorem bench : True := by")

#: Goals of varied length (padding is part of what batching costs).
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


@dataclass(frozen=True)
class Row:
    """One measurement: ``mode`` is ``one-by-one`` or ``batch=B``."""

    mode: str
    requests: int
    seconds: float
    requests_per_s: float
    sequences_per_s: float


def goals(count: int) -> list[str]:
    """``count`` goals, cycling through :data:`GOALS` with distinct suffixes."""
    return [f"{GOALS[i % len(GOALS)]}\n-- {i}" for i in range(count)]


def measure_local(
    generator: TacticGenerator,
    requests: Sequence[GenerationRequest],
    batch_sizes: Sequence[int],
    repeats: int = 1,
) -> list[Row]:
    """Time ``generate`` per request, then ``generate_batch`` in chunks of each size.

    Each mode runs ``repeats`` times and keeps its fastest run: on a shared machine the
    slower runs measure the neighbours, not the generator.
    """
    sequences = sum(r.n for r in requests)
    generator.generate_batch(list(requests[:2]))  # warm-up (allocator, kernels)

    def one_by_one() -> None:
        for request in requests:
            generator.generate(request.goals, request.theorem, request.n)

    def batched(size: int) -> None:
        for begin in range(0, len(requests), size):
            generator.generate_batch(list(requests[begin : begin + size]))

    modes: list[tuple[str, Callable[[], None]]] = [("one-by-one", one_by_one)]
    modes += [(f"batch={size}", partial(batched, size)) for size in batch_sizes]
    rows = []
    for mode, run in modes:
        best = float("inf")
        for _ in range(max(1, repeats)):
            start = time.perf_counter()
            run()
            best = min(best, time.perf_counter() - start)
        rows.append(_row(mode, len(requests), sequences, best))
    return rows


def _row(mode: str, requests: int, sequences: int, seconds: float) -> Row:
    return Row(mode, requests, seconds, requests / seconds, sequences / seconds)


def print_table(rows: Sequence[Row], title: str) -> None:
    print(title)
    print(f"{'mode':<12} {'requests':>8} {'seconds':>9} {'req/s':>9} {'seq/s':>9} {'speed-up':>9}")
    base = rows[0].requests_per_s if rows else 1.0
    for row in rows:
        print(
            f"{row.mode:<12} {row.requests:>8} {row.seconds:>9.3f} {row.requests_per_s:>9.2f} "
            f"{row.sequences_per_s:>9.1f} {row.requests_per_s / base:>8.2f}x"
        )


class _Client:
    """A prover actor's request pattern: one generation request at a time."""

    def __init__(self, directory: object, slot: int) -> None:
        from proofsearch.distributed.generators import RemoteGenerator

        self.generator = RemoteGenerator(directory, slot)

    def run(self, prompts: list[str], n: int) -> int:
        for prompt in prompts:
            self.generator.generate(prompt, THEOREM, n)
        return len(prompts)


def measure_ray(
    model: str, options: dict[str, object], requests: int, n: int, repeats: int
) -> list[Row]:
    """Requests/s through one shared GeneratorActor, 1 vs 2 clients, batched vs not."""
    import ray

    from proofsearch.distributed.generators import GeneratorDirectory
    from proofsearch.distributed.ray_setup import RayOptions, ray_session

    rows = []
    with ray_session(RayOptions()):
        client_class = ray.remote(_Client).options(num_cpus=0)
        for label, max_batch in (("unbatched", 1), ("batched", 32)):
            directory = (
                ray.remote(GeneratorDirectory)
                .options(num_cpus=0)
                .remote(1, "hf", {"model": model, **options}, {"num_cpus": 1}, 0.02, max_batch)
            )
            actors, _ = ray.get(directory.current.remote())
            ray.get(actors[0].ready.remote())
            for clients in (1, 2):
                handles = [client_class.remote(directory, 0) for _ in range(clients)]
                share = goals(requests)
                ray.get([h.run.remote(share[:2], n) for h in handles])  # warm-up
                best = float("inf")
                for _ in range(max(1, repeats)):
                    start = time.perf_counter()
                    ray.get([h.run.remote(share[i::clients], n) for i, h in enumerate(handles)])
                    best = min(best, time.perf_counter() - start)
                rows.append(_row(f"{clients} client(s), {label}", requests, requests * n, best))
                sizes = ray.get(actors[0].batch_sizes.remote())
                print(f"   {clients} client(s), {label}: last batch sizes {sizes[-12:]}")
                for handle in handles:
                    ray.kill(handle)
            ray.kill(directory)
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", help="checkpoint directory (default: build a tiny T5)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--dtype", default="auto")
    parser.add_argument("--requests", type=int, default=32)
    parser.add_argument("-n", type=int, default=8, help="tactics (beams) per request")
    parser.add_argument("--max-new-tokens", type=int, default=24)
    parser.add_argument("--batch-sizes", default="1,4,16")
    parser.add_argument("--strategy", choices=["beam", "sample"], default="beam")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (1)")
    parser.add_argument("--repeats", type=int, default=3, help="keep each mode's best run")
    parser.add_argument("--json", help="also write the rows here")
    parser.add_argument(
        "--ray", action="store_true", help="also measure a shared Ray GeneratorActor"
    )
    args = parser.parse_args(argv)

    from proofsearch.generate.hf import HFTacticGenerator

    # The steered random checkpoints are built by test support (tests/support/tiny.py),
    # which is not shipped in the package: import it from this checkout.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    tiny = importlib.import_module("tests.support.tiny")

    with tempfile.TemporaryDirectory() as scratch:
        model = args.model or str(tiny.build_t5(Path(scratch) / "t5"))
        generator = HFTacticGenerator(
            model,
            strategy=args.strategy,
            max_new_tokens=args.max_new_tokens,
            device=args.device,
            dtype=args.dtype,
            cpu_threads=args.threads,
            seed=0,
        )
        requests = [GenerationRequest(g, THEOREM, args.n) for g in goals(args.requests)]
        sizes = [int(s) for s in args.batch_sizes.split(",") if s]
        rows = measure_local(generator, requests, sizes, args.repeats)
        title = (
            f"{generator!r}\n{args.requests} requests, n={args.n}, "
            f"max_new_tokens={args.max_new_tokens}, best of {args.repeats}"
        )
        print_table(rows, title)
        generator.close()
        if args.ray:
            options = {
                "strategy": args.strategy, "max_new_tokens": args.max_new_tokens,
                "device": args.device, "dtype": args.dtype, "cpu_threads": args.threads,
                "seed": 0,
            }  # fmt: skip
            ray_rows = measure_ray(model, options, args.requests, args.n, args.repeats)
            print()
            print_table(ray_rows, "one shared GeneratorActor (Ray), requests from clients")
            rows += ray_rows
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(r) for r in rows], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
