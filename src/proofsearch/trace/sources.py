"""What to trace: the files, their logical names, and the Coq arguments they need.

Three kinds of input, one result (:class:`Project`):

- the installed standard library (``$(coqc -where)/theories``, logical prefix ``Coq``;
  the files of ``Init/`` are compiled with ``-noinit``, as Coq's own build does; from
  Rocq 9 on ``$(coqc -where)/user-contrib/Stdlib``, prefix ``Stdlib``, with the
  prelude's ``Corelib`` from ``theories``);
- a folder with a ``_CoqProject`` or ``_RocqProject`` (``-R``/``-Q``/``-I`` and ``-arg``
  respected; the ``.v`` files it lists, or every ``.v`` under its ``-R``/``-Q`` folders);
- ``.v`` files with ``--coq-arg`` arguments.

A file's logical name comes from the loadpath, as Coq computes it: the longest mapped
folder that contains the file, its prefix, then the path below it.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shlex
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path


class SourceError(ValueError):
    """Bad input: the message names the file, folder or option."""


@dataclass(frozen=True)
class Source:
    """One ``.v`` file to trace."""

    path: Path
    #: The path shown in records: relative to the project root.
    file: str
    module: str
    #: Arguments of this file only (``-noinit`` for the stdlib's ``Init/``).
    extra_args: tuple[str, ...] = ()


@dataclass
class Project:
    """Files with their loadpath. ``compile``: build missing ``.vo`` files with coqc."""

    name: str
    root: Path
    #: Loadpath and other arguments for coqidetop, coqc and coqdep.
    args: list[str]
    #: (folder, logical prefix) pairs of the loadpath, with the installed library's.
    mappings: list[tuple[Path, str]]
    sources: list[Source] = field(default_factory=list)
    compile: bool = True
    #: Where compiled files go when not beside the sources: a dune project's source tree
    #: must hold no build products (``dune build`` then fails: "Multiple rules
    #: generated"), so they go to a folder of the cache, bound to the same logical names.
    build_dir: Path | None = None

    def module_of(self, path: Path) -> str | None:
        return module_of(path, self.mappings)

    def vo_path(self, path: Path) -> Path:
        """Where the ``.vo`` of the source ``path`` is (or will be) compiled."""
        if self.build_dir is None:
            return path.with_suffix(".vo")
        return (self.build_dir / path.resolve().relative_to(self.root)).with_suffix(".vo")

    def select(self, patterns: Sequence[str]) -> None:
        """Keep the files matching a glob (on the path) or a module prefix."""
        if not patterns:
            return
        kept = [s for s in self.sources if any(_matches(s, p) for p in patterns)]
        if not kept:
            raise SourceError(f"--only {' '.join(patterns)}: no file matches")
        self.sources = kept


def _matches(source: Source, pattern: str) -> bool:
    """A glob matches the file as shown, its path, or the end of its path (``list.v``,
    ``sub/*.v``): files given by absolute paths (``trace $D/*.v --only list.v``) matched
    nothing, where ``extract-coq --only list.v`` matched (audit 52)."""
    if any(char in pattern for char in "*?[") or pattern.endswith(".v"):
        path = str(source.path)
        return (
            fnmatch.fnmatch(source.file, pattern)
            or fnmatch.fnmatch(path, pattern)
            or fnmatch.fnmatch(path, "*/" + pattern.lstrip("/"))
        )
    return source.module == pattern or source.module.startswith(pattern.rstrip(".") + ".")


def module_of(path: Path, mappings: Sequence[tuple[Path, str]]) -> str | None:
    path = path.resolve()
    best: tuple[int, str] | None = None
    for folder, prefix in mappings:
        try:
            relative = path.relative_to(folder.resolve())
        except ValueError:
            continue
        depth = len(folder.resolve().parts)
        parts = [*relative.with_suffix("").parts]
        name = ".".join([prefix, *parts] if prefix else parts)
        if best is None or depth > best[0]:
            best = (depth, name)
    return best[1] if best else None


def coq_where(coqc: str = "coqc") -> Path:
    try:
        where = subprocess.run([coqc, "-where"], capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        raise SourceError(
            f"{coqc} -where failed: {exc}; give --coqc Coq's compiler (coqc), or install Coq"
        ) from None
    return Path(where.stdout.strip())


def theories_prefix(coqlib: Path) -> str:
    """The logical name Coq binds ``$(coqc -where)/theories`` to: ``Coq`` (8.x, the whole
    standard library) or ``Corelib`` (Rocq 9, the prelude alone). Read off the layout,
    since the folder is all the callers have: Coq 8's ``theories`` always holds
    ``Arith``, which Rocq 9 moved to ``user-contrib/Stdlib``."""
    theories = coqlib / "theories"
    if not (theories / "Arith").is_dir() and (theories / "Init").is_dir():
        return "Corelib"
    return "Coq"


def installed_mappings(coqlib: Path) -> list[tuple[Path, str]]:
    """The installed library and user-contrib packages, as Coq maps them, and the
    packages of each ``$COQPATH`` folder, which Coq maps as it maps ``user-contrib``
    (audit 47: a sibling project found through ``COQPATH`` was never traced)."""
    mappings = [(coqlib / "theories", theories_prefix(coqlib))]
    folders = [coqlib / "user-contrib"]
    folders += [Path(part) for part in os.environ.get("COQPATH", "").split(os.pathsep) if part]
    for folder in (f for f in folders if f.is_dir()):
        mappings += [(entry, entry.name) for entry in sorted(folder.iterdir()) if entry.is_dir()]
    return mappings


def stdlib_project(coqc: str = "coqc") -> Project:
    """The standard library: ``theories`` as ``Coq`` (8.x); on Rocq 9
    ``user-contrib/Stdlib`` as ``Stdlib`` with the prelude's ``Corelib`` (``theories``)
    before it, as 8.x's ``theories`` holds its prelude (``Init/``)."""
    coqlib = coq_where(coqc)
    rocq = theories_prefix(coqlib) == "Corelib"
    root = coqlib / "user-contrib" / "Stdlib" if rocq else coqlib / "theories"
    if not root.is_dir():
        raise SourceError(f"{root}: no installed standard library sources there")
    project = Project("coq-stdlib", root, [], installed_mappings(coqlib), compile=False)
    if rocq:
        project.sources += corelib_sources(coqlib)
        project.sources += _library_sources(root, "Stdlib", noinit=False)
    else:
        project.sources += _library_sources(root, "Coq", noinit=True)
    return project


def corelib_sources(coqlib: Path) -> list[Source]:
    """Rocq 9's prelude library (``theories``, ``Corelib.…``; files shown as
    ``Corelib/…``), its ``Init/`` files with ``-noinit`` as Rocq's own build compiles
    them: ``eq_sym``, ``f_equal`` and the rest of the prelude's lemmas live here."""
    return _library_sources(coqlib / "theories", "Corelib", noinit=True, shown_under="Corelib/")


def _library_sources(
    root: Path, prefix: str, *, noinit: bool, shown_under: str = ""
) -> list[Source]:
    """Every ``.v`` under an installed library's ``root`` as ``prefix.Path.To.File``;
    with ``noinit``, the files of ``Init/`` get ``-noinit`` (they build the prelude)."""
    sources = []
    for path in sorted(root.rglob("*.v")):
        file = path.relative_to(root).as_posix()
        extra = ("-noinit",) if noinit and file.startswith("Init/") else ()
        module = f"{prefix}.{file[:-2].replace('/', '.')}"
        sources.append(Source(path, shown_under + file, module, extra))
    return sources


def mapping_args(folder: Path, prefix: str) -> list[str]:
    """An installed library's loadpath as ``coqc`` binds it: ``theories`` (``Coq`` or
    Rocq 9's ``Corelib``) recursively with ``-R``, each ``user-contrib`` package ``-Q``."""
    return ["-R" if prefix in ("Coq", "Corelib") else "-Q", str(folder), prefix]


def root_prefix(project: Project) -> str | None:
    """The logical name the project's root folder is mapped to, if any."""
    root = project.root.resolve()
    return next((p for folder, p in project.mappings if folder.resolve() == root), None)


#: A ``-R``/``-Q`` logical name: dotted identifiers, or ``""`` (no prefix).
_LOGICAL_NAME = re.compile(r"(?:[^\W\d][\w']*(?:\.[^\W\d][\w']*)*)?")


#: ``_CoqProject`` entries that only ``coq_makefile`` reads (where to install the
#: documentation, a findlib META file, the native compiler's mode), each with its value:
#: Coq itself never sees them, so neither does a session.
_MAKEFILE_OPTIONS = ("-docroot", "-generate-meta-for-package", "-native-compiler")
#: Plugin sources a ``_CoqProject`` may list beside its ``.v`` files: ``coq_makefile``
#: builds them; proofsearch loads the built plugin through the ``-I`` folder.
_PLUGIN_SOURCES = (".ml", ".mli", ".mlg", ".mllib", ".mlpack")


def parse_coq_args(coq_args: Sequence[str]) -> tuple[list[str], list[tuple[Path, str]], list[str]]:
    """``--coq-arg`` values read as a loadpath (folders from the current one)."""
    return _parse_loadpath(list(coq_args), Path.cwd(), "--coq-arg")


def _parse_loadpath(
    tokens: list[str], base: Path, where: str, project_file: bool = False
) -> tuple[list[str], list[tuple[Path, str]], list[str]]:
    """(coq arguments, mappings, listed files) of ``_CoqProject`` tokens or ``--coq-arg``s.

    ``project_file``: the tokens are a ``_CoqProject``'s, read as ``coq_makefile`` reads
    them: its own options, variable definitions (``NAME = value``), plugin sources and
    ``META`` files are left out of Coq's arguments (``coqidetop`` stops at an unknown
    option), and a folder stands for the ``.v`` files under it."""
    args: list[str] = []
    mappings: list[tuple[Path, str]] = []
    files: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        skip = _makefile_only(tokens, i) if project_file else 0
        if skip:
            i += skip
        elif project_file and not token.startswith("-") and (base / token).is_dir():
            folder = base / token
            found = sorted(str(p.relative_to(base)) for p in folder.rglob("*.v"))
            files += [f for f in found if f not in files]
            i += 1
        elif token in ("-R", "-Q"):
            if i + 2 >= len(tokens):
                raise SourceError(f"{where}: {token} needs a folder and a logical name")
            folder = (base / tokens[i + 1]).resolve()
            if not folder.is_dir():
                raise SourceError(f"{where}: {token} {tokens[i + 1]}: no such folder")
            name = tokens[i + 2]
            if not _LOGICAL_NAME.fullmatch(name) or (base / name).is_file():
                raise SourceError(
                    f"{where}: {token} {tokens[i + 1]} {name}: {name!r} is not a logical "
                    f"name{' but a file' if (base / name).is_file() else ''}; write "
                    f"{token} {tokens[i + 1]} NAME (a dotted "
                    "identifier such as MyLib) on one line"
                )
            args += [token, str(folder), tokens[i + 2]]
            mappings.append((folder, tokens[i + 2]))
            i += 3
        elif token == "-I":
            if i + 1 >= len(tokens):
                raise SourceError(f"{where}: -I needs a folder")
            args += ["-I", str((base / tokens[i + 1]).resolve())]
            i += 2
        elif token == "-arg":
            if i + 1 >= len(tokens):
                raise SourceError(f"{where}: -arg needs a value")
            args += shlex.split(tokens[i + 1])
            i += 2
        elif token.endswith(".v") and not token.startswith("-"):
            files.append(token)
            i += 1
        else:
            args.append(token)
            i += 1
    return args, mappings, files


def _makefile_only(tokens: list[str], i: int) -> int:
    """How many tokens from ``i`` make an entry only ``coq_makefile`` reads (0: none)."""
    token = tokens[i]
    if token in _MAKEFILE_OPTIONS:
        return min(2, len(tokens) - i)
    if i + 1 < len(tokens) and tokens[i + 1] == "=":
        return min(3, len(tokens) - i)
    if token.endswith(_PLUGIN_SOURCES) or Path(token).name.startswith("META."):
        return 1
    return 0


#: The names a project file goes by: Rocq 9's projects may call it ``_RocqProject``
#: (``rocq makefile -f _RocqProject``); the format is the same.
PROJECT_FILES = ("_CoqProject", "_RocqProject")


def project_file(folder: Path) -> Path | None:
    """The folder's ``_CoqProject`` (or, without one, its ``_RocqProject``), if any."""
    return next((folder / n for n in PROJECT_FILES if (folder / n).is_file()), None)


def coqproject(folder: Path, extra_args: Sequence[str] = (), coqc: str = "coqc") -> Project:
    """A project folder with a ``_CoqProject`` (or ``_RocqProject``)."""
    spec = project_file(folder)
    if spec is None:
        raise SourceError(f"{folder}: no _CoqProject (or _RocqProject) in this folder")
    tokens: list[str] = []
    for line in spec.read_text(encoding="utf-8").splitlines():
        tokens += shlex.split(line, comments=True)
    args, mappings, listed = _parse_loadpath(tokens, folder, str(spec), project_file=True)
    more_args, more_maps, _ = _parse_loadpath(list(extra_args), Path.cwd(), "--coq-arg")
    args += more_args
    mappings += more_maps
    if listed:
        paths = [(folder / name).resolve() for name in listed]
        for name, path in zip(listed, paths, strict=True):
            if not path.is_file():
                raise SourceError(f"{spec}: {name}: no such file")
    else:
        paths = sorted({p.resolve() for f, _ in mappings for p in f.rglob("*.v")})
    project = Project(folder.resolve().name, folder.resolve(), args, [], compile=True)
    project.mappings = mappings + installed_mappings(coq_where(coqc))
    project.sources = [_source(path, project) for path in paths]
    return project


def file_list(
    files: Sequence[Path], coq_args: Sequence[str], coqc: str = "coqc", root: Path | None = None
) -> Project:
    """Loose ``.v`` files; each one's folder is mapped to the empty prefix if no
    ``-R``/``-Q`` covers it (so ``a.v`` is module ``a``, as ``coqc a.v`` names it).
    ``root``: the folder they were found in (default: the current folder)."""
    args, mappings, _ = _parse_loadpath(list(coq_args), Path.cwd(), "--coq-arg")
    paths = []
    for file in files:
        if not file.exists():
            raise SourceError(f"{file}: no such file")
        if not file.is_file() or file.suffix != ".v":
            raise SourceError(f"{file}: not a .v file")
        paths.append(file.resolve())
    installed = installed_mappings(coq_where(coqc))
    for path in paths:
        if module_of(path, mappings) is None:
            # An installed library's file keeps the name Coq gives it (``-Q FOLDER ""``
            # failed every stdpp file: "Cannot find a physical path bound to logical
            # path countable with prefix stdpp", verification 53); another's folder is
            # read as ``coqc`` run there reads it.
            folder, prefix = installed_root(path, installed) or (path.parent, "")
            args += ["-R" if prefix else "-Q", str(folder), prefix]
            mappings.append((folder, prefix))
    base = (root or Path.cwd()).resolve()
    name = paths[0].stem if len(paths) == 1 and root is None else base.name
    project = Project(name, base, args, [])
    project.mappings = mappings + installed
    project.sources = [_source(path, project) for path in paths]
    return project


def installed_root(path: Path, installed: Sequence[tuple[Path, str]]) -> tuple[Path, str] | None:
    """The installed library folder holding ``path`` (a file or folder) and its logical
    name, if any."""
    for folder, prefix in installed:
        if prefix and path.is_relative_to(folder.resolve()):
            return folder.resolve(), prefix
    return None


def _source(path: Path, project: Project) -> Source:
    module = module_of(path, project.mappings)
    if module is None:
        raise SourceError(f"{path}: not under any -R/-Q folder of the project")
    try:
        file = path.relative_to(project.root).as_posix()
    except ValueError:
        file = str(path)
    return Source(path, file, module)


def record_project(project: Project, out: Path) -> None:
    """Write the project's folder and Coq arguments into the trace (``project.json``):
    ``search``/``check``/``export --index`` then load its files without ``--coq-arg``."""
    from proofsearch.trace.schema import ProjectRecord, write_project

    out.mkdir(parents=True, exist_ok=True)
    write_project(
        out, ProjectRecord(name=project.name, root=str(project.root), coq_args=project.args)
    )
