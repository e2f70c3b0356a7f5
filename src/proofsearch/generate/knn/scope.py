"""What a theorem may see of a trace: the no-leak rule of Tactician's and CoqHammer's
evaluations.

A theorem that says where it comes from (theorem-file fields ``module``, or ``file``,
and ``line``) sees the steps and premises of the modules its file has required before
its ``line`` (directly or not: a required module comes with everything it requires) and,
of its own module, only what starts before its ``line``: never its own proof, never a
later lemma, never a module the file requires only further down. A theorem with
``module``/``file`` but no ``line`` sees nothing of its own module (and every module its
file requires). A theorem without either field is taken to be new (not part of the
traced project) and sees the whole index.

Proofs learned during a run follow the same rule by their origin: a proof of a theorem
with no ``line`` counts as the last thing of its module.

A theorem may widen what it learns from (field ``learn_from``: module names): the
recorded proofs of those modules, later lemmas included, are visible to it as *steps*
(tactics to imitate), never as premises. ``prove`` gives a hole its project's modules: a
user filling holes has every other proof of the project, and a lemma's sibling proved
further down (``setUIr`` below ``setUIl``) is the best example of its proof. The no-leak
benchmarks do not set it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


class ScopeError(ValueError):
    """A theorem's ``module``/``file``/``line`` fields do not fit the index."""


@dataclass(frozen=True)
class Scope:
    """A theorem's place in the traced project."""

    module: int
    #: Entries of ``module`` that start before this line are visible (0: none).
    line: int
    #: The theorem gave its ``line``; otherwise it is nowhere in its module's text: it
    #: sees none of the module, all of its requires, and what it teaches (a learned
    #: proof) counts as after everything.
    placed: bool = True
    #: Modules whose recorded proofs the theorem may learn from whole (steps only).
    learn_from: frozenset[int] = frozenset()


#: Loaded before every file compiled without ``-noinit``: an implicit dependency.
PRELUDE = "Coq.Init.Prelude"


class ModuleTable:
    """The traced modules, their files and their dependencies (module indexes).

    When the trace holds ``Coq.Init.Prelude``, it and what it requires count as a
    dependency of every module outside that set (Coq loads the prelude implicitly).
    ``require_lines`` (per module: required module → line of its ``Require``; ``None``
    when the trace does not say) lets a theorem see only what was required before it.
    """

    def __init__(
        self,
        modules: Sequence[str],
        files: Sequence[str],
        requires: Sequence[Sequence[str]],
        require_lines: Sequence[Mapping[str, int] | None] | None = None,
    ):
        self.modules = list(modules)
        self.files = list(files)
        self.index = {name: i for i, name in enumerate(self.modules)}
        lines = list(require_lines) if require_lines is not None else [None] * len(requires)
        self.requires = [
            [self.index[r] for r in required if r in self.index] for required in requires
        ]
        #: Per module: the line of each of its ``requires`` (0: before everything).
        self.require_lines = [
            [(at or {}).get(r, 0) for r in required if r in self.index]
            for required, at in zip(requires, lines, strict=True)
        ]
        #: As given (by name), for :meth:`TraceCorpus.payload`.
        self.require_lines_by_name = lines
        self._closures: dict[tuple[int, tuple[int, ...]], np.ndarray] = {}
        self._prelude: np.ndarray | None = None
        if PRELUDE in self.index:
            prelude = self._transitive(self.requires[self.index[PRELUDE]])
            prelude[self.index[PRELUDE]] = True
            self._prelude = prelude

    def _transitive(self, direct: Sequence[int]) -> np.ndarray:
        """``direct`` and everything they require, directly or not (whole files)."""
        mask = np.zeros(len(self.modules), dtype=bool)
        todo = list(direct)
        while todo:
            name = todo.pop()
            if not mask[name]:
                mask[name] = True
                todo.extend(self.requires[name])
        return mask

    def closure_mask(self, module: int, line: int | None = None) -> np.ndarray:
        """A boolean per module: is it a (transitive) dependency of ``module``, through
        the ``Require`` sentences before ``line`` (all of them when ``line`` is ``None``)?"""
        direct = tuple(
            r
            for r, at in zip(self.requires[module], self.require_lines[module], strict=True)
            if line is None or at < line
        )
        cached = self._closures.get((module, direct))
        if cached is not None:
            return cached
        mask = self._transitive(direct)
        if self._prelude is not None and not self._prelude[module]:
            mask |= self._prelude
        mask[module] = False
        self._closures[(module, direct)] = mask
        return mask

    def dependencies(self, scope: Scope) -> np.ndarray:
        """The modules ``scope`` sees whole: those required before its line."""
        return self.closure_mask(scope.module, scope.line if scope.placed else None)

    def sees(self, scope: Scope | None, origin: Scope | None, widened: bool = True) -> bool:
        """May a theorem at ``scope`` see a proof learned at ``origin``? ``None``: a new
        theorem, outside the project (it sees everything; what it teaches, everyone).
        ``widened``: counting the modules it learns from whole (``learn_from``)."""
        if scope is None or origin is None:
            return True
        if widened and origin.module in scope.learn_from:
            return True
        if origin.module == scope.module:
            return origin.placed and scope.placed and origin.line < scope.line
        return bool(self.dependencies(scope)[origin.module])

    def _module_of_file(self, file: str) -> int | None:
        normalized = file.replace("\\", "/").lstrip("./")
        matches = [
            i for i, f in enumerate(self.files)
            if f in (file, normalized) or f.endswith("/" + normalized)
        ]  # fmt: skip
        return matches[0] if len(matches) == 1 else None

    def scope(self, theorem_name: str, extra: Mapping[str, Any]) -> Scope | None:
        """The theorem's scope, ``None`` when it names no module or file (sees all)."""
        module_name = extra.get("module")
        file = extra.get("file")
        if module_name is None and file is None:
            return None
        if module_name is not None:
            if not isinstance(module_name, str) or module_name not in self.index:
                raise ScopeError(
                    f"theorem {theorem_name}: field 'module': {module_name!r} is not in the index"
                )
            module = self.index[module_name]
        else:
            found = self._module_of_file(str(file))
            if found is None:
                raise ScopeError(
                    f"theorem {theorem_name}: field 'file': {file!r} matches no traced file "
                    "(or several); give 'module' instead"
                )
            module = found
        learn_from = self._learn_from(theorem_name, extra.get("learn_from"))
        line = extra.get("line")
        if line is None:
            return Scope(module, 0, placed=False, learn_from=learn_from)
        if not isinstance(line, int) or isinstance(line, bool) or line < 0:
            raise ScopeError(f"theorem {theorem_name}: field 'line': expected a line number")
        return Scope(module, line, learn_from=learn_from)

    def _learn_from(self, theorem_name: str, names: Any) -> frozenset[int]:
        """The ``learn_from`` field's modules (those the index has: the others hold no
        proof to learn from)."""
        if names is None:
            return frozenset()
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ScopeError(
                f"theorem {theorem_name}: field 'learn_from': expected a list of module names"
            )
        return frozenset(self.index[n] for n in names if n in self.index)

    def visible(
        self,
        scope: Scope | None,
        module: np.ndarray,
        line: np.ndarray,
        until: np.ndarray | None = None,
    ) -> np.ndarray | None:
        """Which entries (by their module and line arrays) ``scope`` may see; ``None``: all.
        ``until`` (premises): an entry with a nonzero one is seen only from its own
        module, up to that line (a functor's body: :class:`~proofsearch.trace.schema.
        Premise`); a theorem that is new to the project sees none of them."""
        if scope is None:
            return None if until is None or not until.any() else until == 0
        mask: np.ndarray = self.dependencies(scope)[module]
        mask |= (module == scope.module) & (line < scope.line)
        if until is not None:
            local = until != 0
            mask &= ~local | ((module == scope.module) & scope.placed & (scope.line <= until))
        return mask

    def visible_steps(
        self, scope: Scope | None, module: np.ndarray, line: np.ndarray
    ) -> np.ndarray | None:
        """:meth:`visible`, widened by the modules the theorem learns from whole."""
        mask = self.visible(scope, module, line)
        if mask is None or scope is None or not scope.learn_from:
            return mask
        return mask | np.isin(module, np.fromiter(scope.learn_from, dtype=np.int64))


class ScopeCache:
    """Visibility masks of one kind of entry, kept for the theorem last asked about
    (a search asks about the same theorem many times in a row)."""

    def __init__(
        self,
        table: ModuleTable,
        module: np.ndarray,
        line: np.ndarray,
        steps: bool = False,
        until: np.ndarray | None = None,
    ) -> None:
        self.table = table
        self.module = module
        self.line = line
        #: Premises: the last line a functor's premise is seen at (0: everywhere).
        self.until = until
        #: Entries are proof steps: the theorem's ``learn_from`` widens what it sees.
        self.steps = steps
        self._last: tuple[object, Scope | None, np.ndarray | None] | None = None

    def get(
        self, theorem_name: str, extra: Mapping[str, Any]
    ) -> tuple[Scope | None, np.ndarray | None]:
        key = (
            theorem_name,
            tuple(sorted((k, str(extra.get(k))) for k in ("module", "file", "line"))),
            str(extra.get("learn_from")) if self.steps else "",
        )
        last = self._last  # read once: a concurrent caller may replace it meanwhile
        if last is not None and last[0] == key:
            return last[1], last[2]
        scope = self.table.scope(theorem_name, extra)
        if self.steps:
            mask = self.table.visible_steps(scope, self.module, self.line)
        else:
            mask = self.table.visible(scope, self.module, self.line, self.until)
        self._last = (key, scope, mask)
        return scope, mask
