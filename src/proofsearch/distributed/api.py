"""LeanAgent's Python API: ``DistributedProver(...).search_unordered(repo, theorems, positions)``.

The constructor takes LeanAgent's arguments and maps them onto proofsearch's:

* ``ckpt_path`` + ``use_vllm`` -> the ``vllm`` generator (or ``hf`` when ``use_vllm`` is
  false) on that checkpoint; ``ckpt_path=None`` + ``tactic`` -> the ``fixed`` generator
  (LeanAgent's test mode). ``module`` is accepted for compatibility (LeanAgent used it to
  import the fixed tactic's module) and ignored: proofsearch tactics are plain text.
* ``indexed_corpus_path`` (ReProver's retrieval-augmented generation) is a trace folder
  (``proofsearch trace --out DIR``), or a list of them read as one index (the stdlib's
  trace, a library's, the project's): the model generators put the premises BM25
  retrieves from it before each state, in ReProver's format (see
  :mod:`proofsearch.generate.retrieval.augment`); with ``generator="knn"`` (or
  ``knn-portfolio``, ``premises``) it is their index.
* ``num_workers``, ``num_gpus``, ``timeout``, ``max_expansions``,
  ``num_sampled_tactics`` as in LeanAgent (``num_workers=1`` runs in-process).
* ``address`` (proofsearch's own) or ``RAY_ADDRESS`` -> a Ray cluster to join, as the
  CLI's ``--address`` joins it (token authentication included); otherwise a local one.
* ``raid_dir`` -> Ray's temporary folder (LeanAgent sets ``RAY_TMPDIR`` from it);
  ``checkpoint_dir`` -> where ``results.jsonl`` is kept, so a call that is interrupted
  and made again resumes instead of starting over; ``debug`` -> Ray's logs shown.

``repo`` names the prover project. For Coq it is the header context: a string is a
header put before every theorem that has none (``Require Import ...``), or a
:class:`CoqRepo` with a header and coqc/coqidetop arguments (``-R dir Lib``). For Lean it
is the Lake project: a path (string or :class:`LeanRepo`) that the REPL runs in.
``positions`` are accepted for compatibility and only checked for length: the REPLs
proofsearch drives need the statement, not a position in a traced file.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proofsearch.distributed.ray_setup import RayOptions
from proofsearch.distributed.run import DistributionOptions, run_search
from proofsearch.distributed.spec import WorkerSpec
from proofsearch.distributed.store import ResultsStore
from proofsearch.search.prover import SearchConfig
from proofsearch.search.result import SearchResult
from proofsearch.theorem import Theorem


@dataclass(frozen=True)
class CoqRepo:
    """A Coq project: a header for theorems without one, and coqc/coqidetop arguments."""

    header: str = ""
    args: tuple[str, ...] = ()


@dataclass(frozen=True)
class LeanRepo:
    """A Lean 4 Lake project with the REPL built, and the command that starts the REPL."""

    project_dir: str
    repl_command: str | None = None


@dataclass
class DistributedProver:
    """Searches many theorems on Ray actors (or in-process with ``num_workers=1``)."""

    use_vllm: bool = False
    ckpt_path: str | None = None
    indexed_corpus_path: str | Sequence[str] | None = None
    tactic: str | None = None
    module: str | None = None
    num_workers: int = 1
    num_gpus: int = 0
    timeout: int = 600
    max_expansions: int | None = None
    num_sampled_tactics: int = 64
    raid_dir: str | None = None
    checkpoint_dir: str | None = None
    debug: bool = False
    #: proofsearch's own options beyond LeanAgent's.
    #: A Ray cluster to join (``HOST:PORT`` of ``ray start --head``); ``None``:
    #: ``RAY_ADDRESS`` or, failing that, a local cluster. Joined like ``--address``.
    address: str | None = None
    prover: str = "coq"
    prover_options: dict[str, Any] = field(default_factory=dict)
    #: A generator by name (``portfolio``, ``openai``, ...) instead of LeanAgent's
    #: ckpt_path/tactic mapping.
    generator: str | None = None
    generator_options: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.indexed_corpus_path is not None:
            from proofsearch.generate.knn.corpus import TraceSet

            TraceSet(self.indexed_corpus_path)  # a clear error now, not in every worker
        if self.ckpt_path is None and not self.tactic and self.generator is None:
            raise ValueError("give ckpt_path (a model), tactic (a fixed tactic) or generator")
        if self.num_workers < 1:
            raise ValueError("num_workers must be at least 1")

    def _generator(self) -> tuple[str, dict[str, Any]]:
        name, options = self._plain_generator()
        if self.indexed_corpus_path is not None and name != "fixed":
            from proofsearch.generate.knn.corpus import index_paths

            paths = index_paths(self.indexed_corpus_path)
            options.setdefault("index", paths[0] if len(paths) == 1 else paths)
        return name, options

    def _plain_generator(self) -> tuple[str, dict[str, Any]]:
        if self.generator is not None:
            options = dict(self.generator_options)
            if self.generator in ("portfolio", "knn-portfolio"):
                options.setdefault("prover", self.prover)
            return self.generator, options
        if self.ckpt_path is None:
            return "fixed", {"tactic": self.tactic, **self.generator_options}
        name = "vllm" if self.use_vllm else "hf"
        options = {"model": self.ckpt_path, **self.generator_options}
        if not self.use_vllm and self.num_gpus > 0:
            options.setdefault("device", "cuda")
        return name, options

    def _spec(self, repo: object) -> tuple[WorkerSpec, str]:
        prover_options = dict(self.prover_options)
        header = ""
        if self.prover == "coq":
            if isinstance(repo, CoqRepo):
                header = repo.header
                if repo.args:
                    prover_options.setdefault("args", list(repo.args))
            elif isinstance(repo, str):
                header = repo
        elif self.prover == "lean":
            if isinstance(repo, LeanRepo):
                prover_options.setdefault("project_dir", repo.project_dir)
                if repo.repl_command:
                    prover_options.setdefault("repl_command", repo.repl_command)
            elif isinstance(repo, str | Path):
                prover_options.setdefault("project_dir", str(repo))
        generator, generator_options = self._generator()
        search = SearchConfig(
            timeout=float(self.timeout),
            max_expansions=self.max_expansions,
            num_sampled_tactics=self.num_sampled_tactics,
        )
        spec = WorkerSpec(self.prover, prover_options, generator, generator_options, search)
        return spec, header

    def search_unordered(
        self,
        repo: object,
        theorems: Sequence[Theorem],
        positions: Sequence[object] | None = None,
    ) -> list[SearchResult]:
        """Search every theorem; results in the order they finished."""
        if positions is not None and len(positions) != len(theorems):
            raise ValueError("positions must have one entry per theorem")
        wrong = next((t for t in theorems if not isinstance(t, Theorem)), None)
        if wrong is not None:  # a string was an AttributeError deep inside the run
            raise TypeError(
                f"theorems must be proofsearch.theorem.Theorem objects, got "
                f"{type(wrong).__name__} {str(wrong)[:60]!r}; e.g. Theorem(name, statement)"
            )
        spec, header = self._spec(repo)
        if header:
            theorems = [t if t.header else dataclasses.replace(t, header=header) for t in theorems]
        options = DistributionOptions(
            workers=self.num_workers,
            ray=RayOptions(address=self.address, tmpdir=self.raid_dir, verbose=self.debug),
            num_gpus=float(self.num_gpus),
        )
        if self.checkpoint_dir is None:
            return run_search(spec, theorems, options)
        path = Path(self.checkpoint_dir) / "results.jsonl"
        with ResultsStore(path, resume=True) as store:
            todo = [t for t in theorems if not store.done(t.name)]
            fresh = run_search(spec, todo, options, store=store)
        done = {t.name for t in todo}
        by_name = {t.name: t for t in theorems}
        previous = [
            _from_record(record, by_name)
            for name, record in store.existing.records.items()
            if name in by_name and name not in done
        ]
        return previous + fresh


def _from_record(record: dict[str, Any], theorems: dict[str, Theorem]) -> SearchResult:
    """A result read back from the checkpoint's results file."""
    from proofsearch.search.result import Status

    fields = {f.name for f in dataclasses.fields(SearchResult)} - {"theorem", "status", "extra"}
    known = {k: v for k, v in record.items() if k in fields}
    return SearchResult(theorem=theorems[record["name"]], status=Status(record["status"]), **known)
