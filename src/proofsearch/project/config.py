"""What a project is: its ``.v`` files, their logical names and Coq's arguments.

Three descriptions give one :class:`~proofsearch.trace.sources.Project` (the tracer's
own, so tracing, hole finding and rebuilding agree on every file's module): a folder
with a ``_CoqProject`` or ``_RocqProject`` (read by the tracer), a dune project
(``dune-project`` plus ``coq.theory`` or ``rocq.theory`` stanzas,
:mod:`proofsearch.trace.dune`), or ``.v`` files with ``--coq-arg``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from proofsearch.project.learn import cache_root
from proofsearch.trace import sources
from proofsearch.trace.dune import DuneError, theories
from proofsearch.trace.sources import Project, Source, SourceError

#: The files that make a folder a project's root.
ROOT_FILES = (*sources.PROJECT_FILES, "dune-project")


def is_root(folder: Path) -> bool:
    """Whether ``folder`` holds a project file (``_CoqProject``, ``_RocqProject``,
    ``dune-project``)."""
    return folder.is_dir() and any((folder / name).is_file() for name in ROOT_FILES)


def enclosing_root(path: Path) -> Path | None:
    """The nearest folder above ``path`` (a file's own folder first) that is a project's
    root, if any."""
    start = path.resolve()
    for folder in start.parents if path.is_dir() else (start.parent, *start.parent.parents):
        if is_root(folder):
            return folder
    return None


def locate(
    inputs: Sequence[Path], coq_args: Sequence[str] = ()
) -> tuple[list[Path], list[Path], Path | None]:
    """``PROJECT [FILES…]`` as given → (what :func:`load_project` reads, the files to
    narrow to, the enclosing project's root when the inputs lie inside one).

    ``prove Sets.v`` run in a project's folder, or ``prove proj/theories``, means that
    project's holes in those files: read as loose files their ``Require``s of the
    project's modules would not compile. Without ``--coq-arg`` only (which gives loose
    files their loadpath by hand)."""
    first = inputs[0]
    if first.is_dir():
        project_inputs, files = [first], list(inputs[1:])
    else:
        project_inputs, files = list(inputs), []
    if coq_args or is_root(first) or not first.exists():
        return project_inputs, files, None
    root = enclosing_root(first)
    if root is None:
        return project_inputs, files, None
    # ``prove . B.v`` in a subfolder: the files narrow, as they do after the root.
    return [root], files if files else list(inputs), root


def load_project(
    inputs: Sequence[Path], coq_args: Sequence[str] = (), coqc: str = "coqc"
) -> Project:
    """The project named by ``inputs``: one folder, or ``.v`` files.

    Raises :class:`SourceError` with one line naming the input when it is neither.
    """
    if not inputs:
        raise SourceError("PROJECT: give a folder with a _CoqProject or dune-project, or .v files")
    first = inputs[0]
    if first.is_dir():
        if sources.project_file(first) is not None:
            return sources.coqproject(first, coq_args, coqc)
        if (first / "dune-project").is_file():
            return dune_project(first, coq_args, coqc)
        return loose_folder(first, coq_args, coqc)
    if not first.exists():
        raise SourceError(
            f"{first}: no such file or folder; give the project's folder or its .v files"
        )
    for item in inputs:
        if item.is_dir():
            raise SourceError(f"{item}: give one project folder first, or only .v files")
    return sources.file_list(list(inputs), coq_args, coqc)


def loose_folder(folder: Path, coq_args: Sequence[str] = (), coqc: str = "coqc") -> Project:
    """A folder of ``.v`` files with no project file: its files (subfolders too), the
    folder bound to the empty prefix (``-Q FOLDER ""``), as ``coqc`` run there finds
    ``Require Import A`` of ``A.v`` beside it; ``sub/B.v`` is ``sub.B``."""

    def visible(path: Path) -> bool:
        return not any(part.startswith((".", "_build")) for part in path.relative_to(folder).parts)

    inner = sorted(
        path.parent
        for name in ROOT_FILES
        for path in folder.rglob(name)
        if visible(path) and path.is_file()
    )
    if inner:  # the parent of a project given by mistake: its loadpath would be wrong
        tops = [p for p in dict.fromkeys(inner) if not any(q in p.parents for q in inner)]
        if len(tops) == 1:
            found = f"{tops[0]} has one; give that folder (the project's root)"
        else:  # a workspace of projects: name them all (audit 47 named only the first)
            shown = ", ".join(map(str, tops[:4])) + (" …" if len(tops) > 4 else "")
            found = f"these folders have one: {shown}; give one of them (a project's root)"
        raise SourceError(
            f"{folder}: no _CoqProject, _RocqProject or dune-project in this folder, but {found}"
        )
    paths = [path for path in sorted(folder.rglob("*.v")) if visible(path)]
    if not paths:
        raise SourceError(
            f"{folder}: no .v file, and no _CoqProject, _RocqProject or dune-project in this "
            "folder; give the project's root folder, or its .v files"
        )
    bound = _folder_binding(folder, coq_args, coqc)
    return sources.file_list(paths, [*bound, *coq_args], coqc, root=folder)


def _folder_binding(folder: Path, coq_args: Sequence[str], coqc: str) -> list[str]:
    """How a folder without a project file is bound: ``-Q FOLDER ""`` (as ``coqc`` run
    there sees it), unless the user's ``--coq-arg`` binds it (theirs wins: it came after
    ours and named nothing, audit 52), or it is inside an installed library, whose files
    :func:`~proofsearch.trace.sources.file_list` binds by the name Coq gives them
    (``user-contrib/stdpp`` is ``stdpp``: bound to ``""`` every file failed, audit 52)."""
    resolved = folder.resolve()
    _, given, _ = sources.parse_coq_args(coq_args)
    if any(bound.resolve() == resolved for bound, _ in given):
        return []
    installed = sources.installed_mappings(sources.coq_where(coqc))
    if sources.installed_root(resolved, installed) is not None:
        return []
    return ["-Q", str(resolved), ""]


def dune_project(folder: Path, coq_args: Sequence[str] = (), coqc: str = "coqc") -> Project:
    """A dune project: each ``coq.theory``/``rocq.theory`` folder is ``-R FOLDER NAME``
    (dune's mapping), and so is its folder of compiled files in the cache (dune refuses
    to build a source tree holding ``.vo`` files it did not make)."""
    try:
        found = theories(folder)
    except (DuneError, OSError) as exc:
        raise SourceError(str(exc)) from None
    if not found:
        raise SourceError(
            f"{folder}: dune-project but no (coq.theory …) or (rocq.theory …) stanza in any "
            "dune file; add one, or give the .v files with --coq-arg"
        )
    root = folder.resolve()
    project = Project(root.name, root, [], [], compile=True)
    # Compiled files go to the cache, each theory's folder bound to its name there too.
    project.build_dir = cache_root() / "dune-build" / project_key(project)
    tokens: list[str] = []
    for theory in found:
        built = project.build_dir / theory.folder.resolve().relative_to(root)
        built.mkdir(parents=True, exist_ok=True)
        tokens += ["-R", str(theory.folder), theory.name, "-R", str(built), theory.name]
        for flag in theory.flags:
            tokens += ["-arg", flag]
    args, mappings, _ = sources._parse_loadpath(tokens, root, f"{folder}/dune")
    more_args, more_maps, _ = sources._parse_loadpath(list(coq_args), Path.cwd(), "--coq-arg")
    project.args = args + more_args
    project.mappings = mappings + more_maps + sources.installed_mappings(sources.coq_where(coqc))
    # The files dune builds: a theory's `(modules …)`, its subfolders only with
    # `(include_subdirs …)` (a scratch file beside them stopped the run: it does not
    # compile, and dune never builds it).
    paths = sorted(
        {
            path.resolve()
            for theory in found
            for path in theory.folder.rglob("*.v")
            if "_build" not in path.relative_to(root).parts and theory.builds(path)
        }
    )
    project.sources = [_source(path, project) for path in paths]
    return project


def _source(path: Path, project: Project) -> Source:
    module = project.module_of(path)
    if module is None:
        raise SourceError(
            f"{path}: not under any coq.theory folder of the project; give a file of the project"
        )
    return Source(path, path.relative_to(project.root).as_posix(), module)


def select_files(project: Project, files: Sequence[Path]) -> list[Source]:
    """The project's sources named by ``FILES…`` (all of them when none is given)."""
    if not files:
        return list(project.sources)
    by_path = {source.path.resolve(): source for source in project.sources}
    chosen: list[Source] = []
    for file in files:
        if file.is_dir():  # a folder inside the project: its files the project lists
            folder = file.resolve()
            inside = [s for s in project.sources if folder in s.path.resolve().parents]
            if not inside:
                raise SourceError(
                    f"{file}: no .v file of the project {project.root} in this folder; "
                    "prove --list shows its holes"
                )
            chosen += [s for s in inside if s not in chosen]
            continue
        candidates = [file, project.root / file]
        match = next((by_path[c.resolve()] for c in candidates if c.resolve() in by_path), None)
        if match is None:
            raise SourceError(
                f"{file}: not a .v file of the project {project.root}; prove --list shows its holes"
            )
        if match not in chosen:
            chosen.append(match)
    return chosen


def project_key(project: Project) -> str:
    """A folder name for the project's cache: its name and a hash of where it is."""
    digest = hashlib.sha256(str(project.root).encode()).hexdigest()[:10]
    return f"{project.name}-{digest}"
