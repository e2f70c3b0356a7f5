"""Names of prover backends, resolved lazily so that each backend's imports stay optional."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from proofsearch.env.base import Prover

#: prover name -> "module:Class" of its :class:`Prover` implementation.
PROVERS: dict[str, str] = {
    "coq": "proofsearch.env.coq:CoqProver",
    "lean": "proofsearch.env.lean:LeanProver",
}


def prover_class(name: str) -> type[Prover]:
    """The backend class registered under ``name``."""
    try:
        target = PROVERS[name]
    except KeyError:
        known = ", ".join(sorted(PROVERS))
        raise ValueError(f"unknown prover {name!r} (known: {known})") from None
    module_name, _, class_name = target.partition(":")
    cls: type[Prover] = getattr(importlib.import_module(module_name), class_name)
    return cls


def make_prover(name: str, options: Mapping[str, Any] | None = None) -> Prover:
    """Build the prover ``name`` from plain options (picklable, so Ray actors can do it)."""
    cls = prover_class(name)
    return cls.from_options(options or {})
