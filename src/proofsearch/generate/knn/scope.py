"""What a theorem may see of a trace: the no-leak rule of Tactician's and CoqHammer's
evaluations.

A theorem that says where it comes from (theorem-file fields ``module``, or ``file``,
and ``line``) sees the steps and premises of the modules its module depends on
(directly or not) and, of its own module, only what starts before its ``line``: never
its own proof, never a later lemma. A theorem with ``module``/``file`` but no ``line``
sees nothing of its own module. A theorem without either field is taken to be new (not
part of the traced project) and sees the whole index.
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


#: Loaded before every file compiled without ``-noinit``: an implicit dependency.
PRELUDE = "Coq.Init.Prelude"


class ModuleTable:
    """The traced modules, their files and their dependencies (module indexes).

    When the trace holds ``Coq.Init.Prelude``, it and what it requires count as a
    dependency of every module outside that set (Coq loads the prelude implicitly).
    """

    def __init__(
        self, modules: Sequence[str], files: Sequence[str], requires: Sequence[Sequence[str]]
    ):
        self.modules = list(modules)
        self.files = list(files)
        self.index = {name: i for i, name in enumerate(self.modules)}
        self.requires = [
            [self.index[r] for r in required if r in self.index] for required in requires
        ]
        self._closures: dict[int, np.ndarray] = {}
        self._prelude: np.ndarray | None = None
        if PRELUDE in self.index:
            prelude = self._transitive(self.index[PRELUDE])
            prelude[self.index[PRELUDE]] = True
            self._prelude = prelude

    def _transitive(self, module: int) -> np.ndarray:
        mask = np.zeros(len(self.modules), dtype=bool)
        todo = list(self.requires[module])
        while todo:
            name = todo.pop()
            if not mask[name]:
                mask[name] = True
                todo.extend(self.requires[name])
        return mask

    def closure_mask(self, module: int) -> np.ndarray:
        """A boolean per module: is it a (transitive) dependency of ``module``?"""
        cached = self._closures.get(module)
        if cached is not None:
            return cached
        mask = self._transitive(module)
        if self._prelude is not None and not self._prelude[module]:
            mask |= self._prelude
        mask[module] = False
        self._closures[module] = mask
        return mask

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
        line = extra.get("line", 0)
        if not isinstance(line, int) or isinstance(line, bool) or line < 0:
            raise ScopeError(f"theorem {theorem_name}: field 'line': expected a line number")
        return Scope(module, line)

    def visible(
        self, scope: Scope | None, module: np.ndarray, line: np.ndarray
    ) -> np.ndarray | None:
        """Which entries (by their module and line arrays) ``scope`` may see; ``None``: all."""
        if scope is None:
            return None
        mask: np.ndarray = self.closure_mask(scope.module)[module]
        mask |= (module == scope.module) & (line < scope.line)
        return mask


class ScopeCache:
    """Visibility masks of one kind of entry, kept for the theorem last asked about
    (a search asks about the same theorem many times in a row)."""

    def __init__(self, table: ModuleTable, module: np.ndarray, line: np.ndarray) -> None:
        self.table = table
        self.module = module
        self.line = line
        self._last: tuple[object, Scope | None, np.ndarray | None] | None = None

    def get(
        self, theorem_name: str, extra: Mapping[str, Any]
    ) -> tuple[Scope | None, np.ndarray | None]:
        key = (
            theorem_name,
            tuple(sorted((k, str(extra.get(k))) for k in ("module", "file", "line"))),
        )
        if self._last is not None and self._last[0] == key:
            return self._last[1], self._last[2]
        scope = self.table.scope(theorem_name, extra)
        mask = self.table.visible(scope, self.module, self.line)
        self._last = (key, scope, mask)
        return scope, mask
