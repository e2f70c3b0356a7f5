"""Which file requires which, from ``coqdep``, and the order that respects it.

``coqdep`` resolves every ``Require`` through the loadpath exactly as Coq will, so the
requires are the files Coq would load (``From X Require Y`` included); each ``.vo`` it
names is mapped back to a logical name through the same loadpath.

``coqdep`` leaves out what a file requires from the installed Coq (the stdlib and
``user-contrib``) unless those folders are on its loadpath, so they are put there as Coq
binds them (``-R theories Coq``; ``-Q`` for each ``user-contrib`` package): a project's
``Require Import List`` is then its dependency on ``Coq.Lists.List``, which an index
holding the stdlib's trace needs to let the project's lemmas see it.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Sequence
from pathlib import Path

from proofsearch.trace.sources import (
    Project,
    SourceError,
    coq_where,
    installed_mappings,
    mapping_args,
    module_of,
    root_prefix,
)


def installed_args(project: Project, coqlib: Path) -> list[str]:
    """The installed libraries' loadpath for ``coqdep``, minus the logical names the
    project binds itself (its own copy of a library is the one it loads)."""
    args = list(project.args)
    own = {args[i + 2] for i, flag in enumerate(args[:-2]) if flag in ("-R", "-Q")}
    found: list[str] = []
    for folder, prefix in installed_mappings(coqlib):
        if prefix in own or not folder.is_dir() or folder.resolve() == project.root.resolve():
            continue
        found += mapping_args(folder, prefix)
    return found


def requires(
    project: Project, coqdep: str = "coqdep", coqlib: Path | None = None
) -> dict[str, list[str]]:
    """Module → the modules it requires directly (sorted), for every source.

    ``coqlib`` (``coqc -where``; found when not given) locates the installed libraries.
    """
    files = [str(source.path) for source in project.sources]
    graph: dict[str, list[str]] = {source.module: [] for source in project.sources}
    by_path = {source.path.resolve(): source.module for source in project.sources}
    args = list(project.args)
    prefix = root_prefix(project)
    if not project.compile and not args and prefix is not None:
        # the installed standard library (no arguments of its own): its folder as coqc
        # maps it (Coq 8's theories as Coq, Rocq 9's user-contrib/Stdlib as Stdlib)
        args = ["-R", str(project.root), prefix]
    args = [*installed_args(project, coqlib or coq_where()), *args]
    for start in range(0, len(files), 200):
        output = run_coqdep([coqdep, *args], files[start : start + 200], project.root)
        for target, deps in _parse(output, project.root):
            module = by_path.get(target.resolve())
            if module is None:
                continue
            names = {module_of(dep, project.mappings) for dep in deps}
            graph[module] = sorted(name for name in names if name and name != module)
    return graph


#: ``*** Error: in file A.v, could not find META.coq-nosuch.`` (8.16), ``*** Error: In file
#: A.v findlib error: …`` (Rocq 9.2): coqdep stops at the first file it cannot read (an
#: OCaml plugin not installed) and answers for none.
_FILE_ERROR = re.compile(r"\*\*\* Error: [Ii]n file (.+?\.v)(?=[,:\s])")


def run_coqdep(command: Sequence[str], files: Sequence[str], cwd: Path) -> str:
    """coqdep's answer for ``files``, without those it fails on: one file loading a
    plugin that is not installed made it answer nothing, so no file of the project had
    a dependency (verification 48: files compiled in alphabetical order, and a rebuilt
    sibling's dependents were not rebuilt). Such a file has no dependencies; its own
    compile then says what is missing."""
    pending = list(files)
    while pending:
        try:
            done = subprocess.run(
                [*command, *pending], cwd=cwd, capture_output=True, text=True, check=False,
                timeout=600,
            )  # fmt: skip
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise SourceError(f"{command[0]} failed: {exc}") from None
        said = " ".join(done.stderr.split())  # coqdep wraps its long lines
        failed = _FILE_ERROR.search(said) if done.returncode != 0 else None
        if failed is None:
            return done.stdout
        named = (cwd / failed[1]).resolve()
        left = [f for f in pending if (cwd / f).resolve() != named]
        if len(left) == len(pending):
            return done.stdout  # a file it names that it was not given: as it answered
        pending = left
    return ""


def _parse(output: str, root: Path) -> list[tuple[Path, list[Path]]]:
    """``X.vo X.glob ... X.required_vo: X.v A.vo B.vo`` lines → (X.v, [A.vo, B.vo])."""
    found: list[tuple[Path, list[Path]]] = []
    for line in output.splitlines():
        head, sep, tail = line.partition(": ")
        targets = _make_words(head)
        if not sep or not targets or not targets[0].endswith(".vo"):
            continue
        target = root / (targets[0][:-3] + ".v")
        deps = [root / token for token in _make_words(tail) if token.endswith(".vo")]
        found.append((target, deps))
    return found


def _make_words(text: str) -> list[str]:
    """The paths of a make rule's side, unescaped as coqdep escapes them (``\\ `` for a
    space, ``\\#``, ``$$``): split on plain spaces, a project in ``my proofs/`` had no
    dependency at all, so its files were searched and rebuilt in no order."""
    words = [""]
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text) and text[i + 1] in " #\\":
            words[-1] += text[i + 1]
            i += 2
            continue
        if char == "$" and text[i + 1 : i + 2] == "$":
            words[-1] += "$"
            i += 2
            continue
        if char.isspace():
            if words[-1]:
                words.append("")
        else:
            words[-1] += char
        i += 1
    return [word for word in words if word]


def order(graph: dict[str, list[str]]) -> list[str]:
    """Modules in an order where each comes after what it requires (ties by name)."""
    done: set[str] = set()
    result: list[str] = []
    state: dict[str, int] = {}

    def visit(name: str, trail: Sequence[str]) -> None:
        if state.get(name) == 2:
            return
        if state.get(name) == 1:
            raise SourceError(f"Require cycle: {' -> '.join([*trail, name])}")
        state[name] = 1
        for dep in graph.get(name, []):
            if dep in graph:
                visit(dep, [*trail, name])
        state[name] = 2
        done.add(name)
        result.append(name)

    for name in sorted(graph):
        visit(name, [])
    return result
