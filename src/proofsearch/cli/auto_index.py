"""``search --index auto``: trace what the theorems load, once, and search with it.

``knn-portfolio`` proves about three times what the portfolio alone does, but it needs a
trace, and a user with a theorem file should not have to know which library folders to
trace with which ``-R`` flags. ``prove`` already traces the installed libraries a project
requires (cached per library and Coq release; the standard library into
``trace --coq-stdlib``'s folder); ``--index auto`` does the same for a theorem file:
each distinct header is written to a scratch file, ``coqdep`` reads what the headers
``Require`` of the installed libraries (the standard library, math-comp, Flocq, …),
those modules and everything they require are traced into the cache (only the first
run pays), and their folders become the index. A theorem's own ``module`` and its
``learn_from`` modules, when an installed library has them, are traced too, so that its
place scopes its search as with any ``--index`` (never its own proof, never a later
lemma).
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from rich.console import Console

from proofsearch.cli.errors import CommandError
from proofsearch.cli.options import absolute_paths
from proofsearch.theorem import Theorem

#: The ``--index`` value that asks for this.
AUTO = "auto"


def wants_auto(index: Sequence[str] | None) -> bool:
    return bool(index) and AUTO in (index or [])


def place_modules(theorems: Sequence[Theorem]) -> list[str]:
    """The modules the theorems name as their place or as ``learn_from``."""
    modules: set[str] = set()
    for theorem in theorems:
        module = theorem.extra.get("module")
        if isinstance(module, str) and module:
            modules.add(module)
        learn_from = theorem.extra.get("learn_from")
        if isinstance(learn_from, list):
            modules.update(m for m in learn_from if isinstance(m, str) and m)
    return sorted(modules)


def header_files(theorems: Sequence[Theorem], folder: Path) -> list[Path]:
    """The theorems' distinct headers, and a ``Require`` of each place module, as ``.v``
    files in ``folder`` (for ``coqdep`` only: they are never compiled)."""
    texts = sorted({t.header for t in theorems if t.header.strip()})
    places = place_modules(theorems)
    if places:  # coqdep skips, with a warning, a module no library has
        texts.append("".join(f"Require {module}.\n" for module in places))
    paths = []
    for number, text in enumerate(texts):
        path = folder / f"Header{number}.v"
        path.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def auto_index(
    theorems: Sequence[Theorem],
    coq_args: Sequence[str],
    *,
    given: Sequence[str] = (),
    coqc: str = "coqc",
    jobs: int | None = None,
    progress: Callable[..., object] | None = None,
) -> list[str]:
    """Trace (or reuse the cached traces of) the installed libraries' modules the theorems
    load; their trace folders, after the ``given`` ones."""
    from proofsearch.project.libraries import trace_libraries
    from proofsearch.trace.sources import Project, Source

    with tempfile.TemporaryDirectory(prefix="proofsearch-auto-index-") as scratch:
        folder = Path(scratch)
        project = Project("theorems", folder, list(coq_args), [(folder, "Theorems")])
        project.compile = False
        for path in header_files(theorems, folder):
            project.sources.append(Source(path, path.name, f"Theorems.{path.stem}"))
        folders = trace_libraries(
            project, jobs=jobs, coqc=coqc, progress=progress, given=[Path(g) for g in given]
        )
    return [*given, *map(str, folders)]


def resolve(args: argparse.Namespace, theorems: Sequence[Theorem], console: Console) -> list[str]:
    """``--index`` with ``auto`` replaced by the traced libraries' folders (the other
    ``--index`` folders kept, first). Usage errors come before any tracing."""
    from proofsearch.cli.trace import TraceProgress
    from proofsearch.generate.registry import INDEXED_GENERATORS, MODEL_GENERATORS
    from proofsearch.project.learn import cache_root
    from proofsearch.trace.sources import SourceError

    if args.prover != "coq":
        raise CommandError(
            "--index auto", f"traces installed Coq libraries; --prover {args.prover} has none",
            "give the trace folders themselves with --index DIR",
        )  # fmt: skip
    if args.generator is not None and args.generator not in INDEXED_GENERATORS | MODEL_GENERATORS:
        raise CommandError(
            "--index auto", f"generator {args.generator} does not read an index",
            "drop --index, or use knn, knn-portfolio, premises, hf, openai or vllm",
        )  # fmt: skip
    given = [index for index in args.index if index != AUTO]
    if not args.quiet:
        console.print(
            f"--index auto: tracing what the theorems load from the installed libraries "
            f"(only what is not cached yet, under {cache_root()})",
            markup=False, highlight=False,
        )  # fmt: skip
    try:
        folders = auto_index(
            theorems,
            absolute_paths(args.coq_arg),
            given=given,
            coqc=args.coqc,
            progress=None if args.quiet else TraceProgress,
        )
    except SourceError as exc:
        raise CommandError("--index auto", str(exc)) from None
    if not args.quiet:
        console.print(f"--index auto: index {' '.join(folders)}", markup=False, highlight=False)
    return folders
