"""Compiling changed files and every project file that depends on them, in a scratch copy.

Nothing is written to the project until its filled files and their dependents compile.
The project folder is copied (its ``.vo`` files included, so unchanged files need no
build) into a temporary folder, the loadpath is pointed at the copy, and ``coqc`` runs
on each changed file and each file that requires one (directly or not), in dependency
order, ``jobs`` files at a time (a file starts once the files it requires are compiled,
as ``make -j`` does). Coq refuses a ``.vo`` compiled against an older version of a
library it requires, so every dependent is rebuilt, not only the changed files.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import shutil
import subprocess
import tempfile
import time
from collections.abc import Collection, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

from proofsearch.env.coq.checker import parse_assumptions
from proofsearch.env.coq.version import coq_env
from proofsearch.trace.deps import order
from proofsearch.trace.sources import Project

_COQC_LINE = re.compile(r'File "[^"]*", line (\d+)')


@dataclass(frozen=True)
class BuildFailure:
    """The first file of a build that did not compile: where, and Coq's message."""

    module: str
    file: str
    line: int
    message: str

    @property
    def summary(self) -> str:
        """Coq's message on one line (the ``Error:`` part when there is one)."""
        text = " ".join(self.message.split())
        _, found, error = text.partition("Error:")
        return (error.strip() if found else text)[:300]


def dependents(graph: Mapping[str, Sequence[str]], changed: set[str]) -> set[str]:
    """``changed`` and every module that requires one of them, directly or not."""
    result = set(changed)
    grew = True
    while grew:
        grew = False
        for module, required in graph.items():
            if module not in result and any(r in result for r in required):
                result.add(module)
                grew = True
    return result


def requirements(graph: Mapping[str, Sequence[str]], module: str) -> set[str]:
    """The project modules ``module`` requires, directly or not."""
    found: set[str] = set()
    todo = list(graph.get(module, ()))
    while todo:
        name = todo.pop()
        if name in graph and name not in found:
            found.add(name)
            todo.extend(graph[name])
    return found


def _without_build_dir(project: Project) -> list[str]:
    """The project's Coq arguments less the ``-R`` bindings of its ``build_dir`` (the
    copy holds those ``.vo`` files beside its sources)."""
    args = list(project.args)
    if project.build_dir is None:
        return args
    kept: list[str] = []
    i = 0
    while i < len(args):
        if (
            args[i] == "-R"
            and i + 2 < len(args)
            and Path(args[i + 1]).is_relative_to(project.build_dir)
        ):
            i += 3
            continue
        kept.append(args[i])
        i += 1
    return kept


class ScratchBuild:
    """A copy of the project where filled texts are compiled before they are written."""

    def __init__(
        self,
        project: Project,
        graph: Mapping[str, Sequence[str]],
        *,
        coqc: str = "coqc",
        timeout: float = 600.0,
        jobs: int = 1,
        leave_out: Collection[str] = (),
    ) -> None:
        """``leave_out``: modules not built (a file that does not compile, and those
        that load it: ``HolePlan.unbuilt``)."""
        self.project = project
        self.graph = dict(graph)
        self.coqc = coqc
        self.timeout = timeout
        self.jobs = max(1, jobs)
        self._tmp = tempfile.TemporaryDirectory(prefix="proofsearch-rebuild-")
        self.root = Path(self._tmp.name) / project.root.name
        shutil.copytree(
            project.root,
            self.root,
            symlinks=True,
            ignore=shutil.ignore_patterns(".git", "_build", ".*.aux"),
        )
        if project.build_dir is not None:  # a dune project: its .vo files beside the copy
            shutil.copytree(project.build_dir, self.root, dirs_exist_ok=True)
        self.args = [self._moved(arg) for arg in _without_build_dir(project)]
        self.paths = {source.module: self._moved_path(source.path) for source in project.sources}
        self.files = {source.module: source.file for source in project.sources}
        self.originals = {
            source.module: source.path.read_bytes().decode("utf-8") for source in project.sources
        }
        self._written: dict[str, str] = {}
        every = order({m: list(self.graph.get(m, ())) for m in self.originals})
        self._order = [module for module in every if module not in leave_out]
        #: What each scratch ``.vo`` was compiled from: a hash of its text and of what
        #: its requirements were compiled from (the copied ``.vo`` files: the originals).
        self._compiled: dict[str, str | None] = self._fingerprints(self.originals)
        #: Wall seconds spent building, for the run's time accounting.
        self.seconds = 0.0

    def _fingerprints(self, texts: Mapping[str, str]) -> dict[str, str | None]:
        prints: dict[str, str | None] = {}
        for module in self._order:
            digest = hashlib.sha256(texts.get(module, self.originals[module]).encode())
            for required in self.graph.get(module, ()):
                digest.update(str(prints.get(required, "")).encode())
            prints[module] = digest.hexdigest()
        return prints

    def _moved_path(self, path: Path) -> Path:
        try:
            return self.root / path.resolve().relative_to(self.project.root)
        except ValueError:
            return path

    def _moved(self, arg: str) -> str:
        path = Path(arg)
        if path.is_absolute() and path.exists():
            return str(self._moved_path(path))
        return arg

    def build(self, texts: Mapping[str, str], until: str | None = None) -> BuildFailure | None:
        """Write ``texts`` (module → text; other modules get their original text back)
        and compile every module whose ``.vo`` no longer matches its text or its
        requirements, in dependency order; ``until``: only it and what it requires."""
        for module, original in self.originals.items():
            text = texts.get(module, original)
            if self._written.get(module, original) != text:
                self.paths[module].write_bytes(text.encode("utf-8"))
                self._written[module] = text
        wanted = self._fingerprints(texts)
        scope = None if until is None else requirements(self.graph, until) | {until}
        todo = [
            module for module in self._order
            if self._compiled.get(module) != wanted[module]
            and (scope is None or module in scope)
        ]  # fmt: skip
        start = time.perf_counter()
        try:
            return self._compile_all(todo, wanted)
        finally:
            self.seconds += time.perf_counter() - start

    def _compile_all(
        self, todo: list[str], wanted: Mapping[str, str | None]
    ) -> BuildFailure | None:
        """Compile ``todo`` (in dependency order), ``jobs`` at a time; once one fails,
        nothing new starts, and the failure earliest in dependency order is returned
        (the one a one-at-a-time build would meet first among those met)."""
        remaining = list(todo)
        running: dict[Future[BuildFailure | None], str] = {}
        failures: dict[str, BuildFailure] = {}
        with ThreadPoolExecutor(self.jobs, thread_name_prefix="rebuild") as pool:
            while True:
                if not failures:  # after a failure, only what runs finishes
                    self._start_ready(pool, remaining, running)
                if not running:
                    break
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in finished:
                    module = running.pop(future)
                    failure = future.result()
                    if failure is None:
                        self._compiled[module] = wanted[module]
                    else:
                        self._compiled[module] = None
                        failures[module] = failure
        if not failures:
            return None
        return failures[min(failures, key=self._order.index)]

    def _start_ready(
        self,
        pool: ThreadPoolExecutor,
        remaining: list[str],
        running: dict[Future[BuildFailure | None], str],
    ) -> None:
        """Start the modules of ``remaining`` none of whose requirements is still to be
        built or building, while fewer than ``jobs`` run."""
        busy = set(remaining) | set(running.values())
        for module in list(remaining):
            if len(running) >= self.jobs:
                return
            if not any(r in busy for r in self.graph.get(module, ())):
                remaining.remove(module)
                running[pool.submit(self._compile, module)] = module

    def _compile(self, module: str) -> BuildFailure | None:
        command = [self.coqc, *self.args, str(self.paths[module])]
        try:
            done = subprocess.run(
                command, cwd=self.root, capture_output=True, text=True,
                timeout=self.timeout, check=False, env=coq_env(),
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            return BuildFailure(
                module, self.files[module], 1, f"coqc took more than {self.timeout:g} s"
            )
        if done.returncode == 0:
            return None
        match = _COQC_LINE.search(done.stderr)
        message = done.stderr.strip() or f"coqc exited with code {done.returncode}"
        return BuildFailure(
            module, self.files[module], int(match.group(1)) if match else 1, message[-2000:]
        )

    def assumptions(self, names: Mapping[str, str]) -> dict[str, tuple[str, ...]] | None:
        """``Print Assumptions`` of each lemma as the scratch copy now builds (full name
        → its module), by name: what a filled proof rests on, the user's kept tactics
        included (a part's search saw only its own goal). ``None`` when the query
        cannot run (then the search's re-checks are all there is)."""
        if not names:
            return {}
        marker = f"proofsearch_assumptions_{secrets.token_hex(8)}"
        lines = [f"Require {module}." for module in sorted(set(names.values()))]
        lines.append("Set Printing Width 100000.")
        for name in names:
            lines += [f"Locate {marker}.", f"Print Assumptions {name}."]
        path = self.root.parent / "ProofsearchFilledAssumptions.v"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        try:
            done = subprocess.run(
                [self.coqc, *self.args, str(path)], cwd=self.root, capture_output=True,
                text=True, timeout=self.timeout, check=False, env=coq_env(),
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            return None
        if done.returncode != 0:
            return None
        answers = done.stdout.split(marker)[1:]
        if len(answers) != len(names):
            return None
        printed: dict[str, tuple[str, ...]] = {}
        for name, answer in zip(names, answers, strict=True):
            body = answer.split("\n", 1)[1] if "\n" in answer else ""
            _, axioms, _ = parse_assumptions(body, accept_flags=True)
            printed[name] = axioms
        return printed

    def close(self) -> None:
        self._tmp.cleanup()

    def __enter__(self) -> ScratchBuild:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
