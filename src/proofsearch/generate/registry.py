"""Names of tactic generators, resolved lazily so that model generators' heavy imports
(torch, transformers, vllm) are paid only by those who use them."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from proofsearch.generate.base import TacticGenerator

#: generator name -> "module:factory"; each factory takes keyword options.
GENERATORS: dict[str, str] = {
    "fixed": "proofsearch.generate.registry:_fixed",
    "portfolio": "proofsearch.generate.registry:_portfolio",
}


def _fixed(tactic: str, **_: Any) -> TacticGenerator:
    from proofsearch.generate.fixed import FixedTacticGenerator

    return FixedTacticGenerator(tactic)


def _portfolio(prover: str = "coq", tactics_file: str | None = None, **_: Any) -> TacticGenerator:
    from proofsearch.generate import portfolio

    tactics = (
        portfolio.load_tactics(tactics_file) if tactics_file else portfolio.default_tactics(prover)
    )
    return portfolio.PortfolioGenerator(tactics)


def register(name: str, target: str) -> None:
    """Add a generator: ``target`` is ``"module:factory"``."""
    GENERATORS[name] = target


def make_generator(name: str, options: Mapping[str, Any] | None = None) -> TacticGenerator:
    """Build the generator ``name`` from plain (picklable) options."""
    try:
        target = GENERATORS[name]
    except KeyError:
        known = ", ".join(sorted(GENERATORS))
        raise ValueError(f"unknown generator {name!r} (known: {known})") from None
    module_name, _, attribute = target.partition(":")
    factory: Callable[..., TacticGenerator] = getattr(
        importlib.import_module(module_name), attribute
    )
    return factory(**dict(options or {}))
