"""Options of the Lean backend: plain values, so that they travel to Ray actors."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from pydantic import TypeAdapter, ValidationError

from proofsearch.env.lean.checker import STANDARD_AXIOMS
from proofsearch.env.lean.guard import DEFAULT_ALLOWED_OPTIONS, GuardPolicy

#: The REPL built next to the Lake project (``../repl``), run inside the project's
#: environment so that it sees the project's (and Mathlib's) ``.olean`` files.
DEFAULT_REPL_COMMAND = "lake env ../repl/.lake/build/bin/repl"


@dataclass(frozen=True)
class LeanConfig:
    """Options of the Lean backend (plain values, so they travel to Ray actors)."""

    #: Command line that starts the REPL (split with :func:`shlex.split`), run in
    #: ``project_dir``.
    repl_command: str = DEFAULT_REPL_COMMAND
    #: Working directory of the REPL: the Lake project whose modules the theorems import.
    project_dir: str | None = None
    #: When ``repl_command`` is ``lake env PROGRAM ...``: read lake's environment once and
    #: start PROGRAM directly, so that the REPL is our child (killed with us, even by
    #: SIGKILL) and restarts skip lake. False: run the command as given.
    resolve_lake_env: bool = True
    #: Default wall-clock limit of one tactic, in seconds; past it the process is killed.
    tactic_timeout: float = 10.0
    #: Limit for opening a statement (``statement := by sorry``) and small commands.
    statement_timeout: float = 60.0
    #: Limit for running a header (``import Mathlib`` takes minutes on a cold cache).
    header_timeout: float = 600.0
    #: Limit for the whole-proof command of the re-check.
    check_timeout: float = 300.0
    #: Address-space cap of each REPL process in MiB (``import Mathlib`` needs ~9 GB);
    #: 0 disables it.
    memory_limit_mb: int = 16384
    #: Restart the process after this many requests (the REPL keeps every state it made,
    #: so its memory only grows); 0: never.
    recycle_after: int = 2000
    #: Accept ``native_decide`` / ``decide +native`` and the axioms they add.
    allow_native_decide: bool = False
    #: Axioms a proof may rest on (besides those a theorem lists in ``allowed_axioms``).
    allowed_axioms: tuple[str, ...] = STANDARD_AXIOMS
    #: Words added to / taken out of the tactic deny-list.
    denied_words: tuple[str, ...] = ()
    allowed_words: tuple[str, ...] = ()
    #: Options a tactic may set with ``set_option NAME VALUE in`` (never ``debug.*``).
    allowed_options: tuple[str, ...] = DEFAULT_ALLOWED_OPTIONS
    #: Longest tactic accepted, in characters.
    max_tactic_chars: int = 8192

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> LeanConfig:
        """Build from plain options (lists become tuples); unknown names are an error."""
        known = {f.name for f in fields(cls)}
        unknown = set(options) - known
        if unknown:
            raise ValueError(
                f"unknown Lean options: {', '.join(sorted(unknown))}"
                f" (known: {', '.join(sorted(known))})"
            )
        converted = {k: tuple(v) if isinstance(v, list) else v for k, v in options.items()}
        try:
            config = TypeAdapter(cls).validate_python(converted)
        except ValidationError as exc:
            raise ValueError(f"invalid Lean options: {exc}") from None
        config.validate()
        return config

    def validate(self) -> None:
        if not self.command:
            raise ValueError("repl_command is empty")
        for name in ("tactic_timeout", "statement_timeout", "header_timeout", "check_timeout"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive")
        if self.memory_limit_mb < 0 or self.recycle_after < 0 or self.max_tactic_chars <= 0:
            raise ValueError("memory_limit_mb, recycle_after must be ≥ 0, max_tactic_chars > 0")

    @property
    def command(self) -> list[str]:
        return shlex.split(self.repl_command)

    @property
    def memory_limit(self) -> int | None:
        return self.memory_limit_mb * 1024 * 1024 if self.memory_limit_mb > 0 else None

    def policy(self) -> GuardPolicy:
        return GuardPolicy.build(
            self.denied_words,
            self.allowed_words,
            allow_native_decide=self.allow_native_decide,
            allowed_options=self.allowed_options,
            max_chars=self.max_tactic_chars,
        )
