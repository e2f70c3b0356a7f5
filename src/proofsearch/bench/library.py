"""Which Coq library a benchmark is drawn from: its files, logical names and loadpath.

One description (:class:`CoqLibrary`) for the three sources ``bench extract-coq``
accepts, so that extraction, sampling and validation run one code path for all:

- the installed standard library (``extract-coq-stdlib``'s shortcut): sources under
  ``$(coqc -where)/theories``, prefix ``Coq`` (``Stdlib`` on Rocq 9), ``Init/`` skipped;
- an installed library by its logical name (``--library mathcomp.ssreflect``): sources
  under ``$(coqc -where)/user-contrib/mathcomp/ssreflect``; headers load the library's
  other modules from the installed compiled copy, as a user of the package would;
- a project folder (``--project DIR``) with a ``_CoqProject`` (read by
  :func:`proofsearch.trace.sources.coqproject`, as ``proofsearch trace`` reads it) or
  dune ``(coq.theory (name X))`` stanzas; its compiled ``.vo`` files must exist (``make``
  or ``proofsearch trace`` builds them). A project's sample is stratified by file.

Leak rule: a lemma's header is its file's prefix, so it can load only modules its file
requires; those never include the lemma's own module or a later one (one that requires
it), since Coq loads requires transitively and forbids cycles. Validation checks this on
what Coq actually loaded (``Print Libraries``): see
:func:`~proofsearch.bench.stdlib_validate.validate`.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from proofsearch.bench.stdlib_extract import Extraction, extract_file
from proofsearch.trace.dune import DuneError
from proofsearch.trace.dune import theories as dune_theories
from proofsearch.trace.sources import project_file


class LibraryError(ValueError):
    """The library cannot be used: the message names the folder, file or option."""


@dataclass(frozen=True)
class LibraryFile:
    """One ``.v`` file: its path, its path relative to the library root, its module."""

    path: Path
    file: str
    module: str
    #: The sample's stratum.
    part: str


@dataclass
class CoqLibrary:
    """A library's files (in a fixed order) and the Coq arguments its headers need."""

    name: str
    root: Path
    files: list[LibraryFile] = field(default_factory=list)
    #: Loadpath arguments for ``coqc``/``coqidetop`` (an installed library: its own ``-R``).
    args: list[str] = field(default_factory=list)
    #: Parts whose lemmas are skipped because every ``coqc`` loads them (``Init``).
    prelude_parts: frozenset[str] = frozenset()

    #: Where the compiled ``.vo`` of a source lives, when it is not beside it (dune).
    built: dict[Path, Path] = field(default_factory=dict)

    def uncompiled(self) -> LibraryFile | None:
        """The first file whose ``.vo`` is missing (its lemmas' later files cannot load it)."""
        for entry in self.files:
            vo = self.built.get(entry.path, entry.path.with_suffix(".vo"))
            if not vo.is_file():
                return entry
        return None

    def select(self, patterns: Sequence[str]) -> None:
        """Keep the files matching a glob on their path (``*/seq.v``) or a module prefix."""
        if not patterns:
            return
        kept = [f for f in self.files if any(_matches(f, p) for p in patterns)]
        if not kept:
            raise LibraryError(
                f"--only {' '.join(patterns)}: no file of {self.name} matches; "
                "give a glob on the file's path (*/seq.v) or a module prefix"
            )
        self.files = kept

    def extract(self, instances: bool = False) -> Extraction:
        """Parse every file (no Coq involved); ``instances``: named ``Instance``s with a
        proof are entries too."""
        result = Extraction()
        for entry in self.files:
            result.merge(
                extract_file(
                    entry.path,
                    self.root,
                    module=entry.module,
                    part=entry.part,
                    prelude_parts=self.prelude_parts,
                    instances=instances,
                )
            )
        return result


def _matches(entry: LibraryFile, pattern: str) -> bool:
    if any(char in pattern for char in "*?[") or pattern.endswith(".v"):
        return fnmatch.fnmatch(entry.file, pattern) or fnmatch.fnmatch(str(entry.path), pattern)
    return entry.module == pattern or entry.module.startswith(pattern.rstrip(".") + ".")


def _module(prefix: str, relative: str) -> str:
    parts = [*([prefix] if prefix else []), *relative.removesuffix(".v").split("/")]
    return ".".join(parts)


def _part(relative: str, flat: str) -> str:
    """The top-level folder; a file at the top is ``flat`` (or its own stem if empty)."""
    if "/" in relative:
        return relative.split("/", 1)[0]
    return flat or relative.removesuffix(".v")


def _folder_library(name: str, root: Path, prefix: str, flat_part: str) -> CoqLibrary:
    library = CoqLibrary(name, root)
    for path in sorted(root.rglob("*.v")):
        relative = path.relative_to(root).as_posix()
        library.files.append(
            LibraryFile(path, relative, _module(prefix, relative), _part(relative, flat_part))
        )
    if not library.files:
        raise LibraryError(f"{root}: no .v files; give the folder of the library's sources")
    return library


def stdlib_library(root: Path | None = None, coqc: str = "coqc") -> CoqLibrary:
    """The installed standard library (``root`` overrides where its sources are)."""
    from proofsearch.env.coq.version import binary_version, stdlib_root

    prefix = binary_version(coqc).stdlib_prefix
    folder = stdlib_root(coqc) if root is None else root
    if not folder.is_dir():
        raise LibraryError(f"{folder}: no such folder; give --root DIR")
    library = _folder_library("coq-stdlib", folder, prefix, "(top)")
    library.prelude_parts = frozenset({"Init"})
    return library


def installed_library(logical: str, coqc: str = "coqc") -> CoqLibrary:
    """An installed library by logical name: its sources under ``user-contrib``.

    Flat libraries (math-comp's ``ssreflect/``) are stratified by file.
    """
    from proofsearch.env.coq.version import coq_where

    if not re.fullmatch(r"[^\W\d][\w']*(\.[^\W\d][\w']*)*", logical):
        raise LibraryError(
            f"--library {logical!r}: not a logical name; give one such as mathcomp.ssreflect"
        )
    folder = coq_where(coqc) / "user-contrib" / Path(*logical.split("."))
    if not folder.is_dir():
        raise LibraryError(
            f"--library {logical}: {folder} does not exist; install the library "
            "(Debian: libcoq-mathcomp-ssreflect for mathcomp.ssreflect)"
        )
    library = _folder_library(logical, folder, logical, "")
    # A library's files may require each other by short name (Flocq's ``Require Import
    # Zaux Raux``), which resolves only under the ``-R`` its own build uses; installed,
    # user-contrib is bound as with ``-Q``. A header is the file's prefix, so it needs that.
    library.args = ["-R", str(folder), logical]
    return library


def project_library(folder: Path, coqc: str = "coqc") -> CoqLibrary:
    """A project folder: its ``_CoqProject`` (or ``_RocqProject``), else its dune
    ``coq.theory``/``rocq.theory`` stanzas."""
    if not folder.is_dir():
        raise LibraryError(f"--project {folder}: no such folder; give the project's root folder")
    if project_file(folder) is not None:
        return _coqproject_library(folder, coqc)
    try:
        theories = [(theory.folder, theory.name) for theory in dune_theories(folder)]
    except (DuneError, OSError) as exc:
        raise LibraryError(f"--project {folder}: {exc}") from None
    if not theories:
        raise LibraryError(
            f"--project {folder}: no _CoqProject (or _RocqProject) and no dune (coq.theory "
            "(name ...)) or (rocq.theory (name ...)) stanza; give the project's root folder"
        )
    root = folder.resolve()
    library = CoqLibrary(root.name, root)
    for source, prefix in theories:
        relative = source.resolve().relative_to(root)
        built = root / "_build" / "default" / relative
        library.args += ["-Q", str(built if built.is_dir() else source.resolve()), prefix]
        for path in sorted(source.resolve().glob("*.v")):
            file = path.relative_to(root).as_posix()
            module = _module(prefix, path.relative_to(source.resolve()).as_posix())
            library.files.append(LibraryFile(path, file, module, module))
            library.built[path] = (built / path.name).with_suffix(".vo")
    return library


def _coqproject_library(folder: Path, coqc: str) -> CoqLibrary:
    from proofsearch.trace.sources import SourceError, coqproject

    try:
        project = coqproject(folder, coqc=coqc)
    except SourceError as exc:
        raise LibraryError(str(exc)) from None
    library = CoqLibrary(project.name, project.root, args=list(project.args))
    for source in project.sources:
        library.files.append(LibraryFile(source.path, source.file, source.module, source.module))
    if not library.files:
        raise LibraryError(
            f"{project_file(folder)}: no .v files; list them there or put them in the folder"
        )
    return library
