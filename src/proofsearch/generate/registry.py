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
    "hf": "proofsearch.generate.registry:_hf",
    "openai": "proofsearch.generate.registry:_openai",
    "vllm": "proofsearch.generate.registry:_vllm",
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
    target = GENERATORS.get(name)
    if target is None and ":" in name:
        target = name  # "package.module:factory", a user's own generator
    if target is None:
        known = ", ".join(sorted(GENERATORS))
        raise ValueError(
            f"unknown generator {name!r} (known: {known}; or give module:factory)"
        ) from None
    module_name, _, attribute = target.partition(":")
    factory: Callable[..., TacticGenerator] = getattr(
        importlib.import_module(module_name), attribute
    )
    return factory(**dict(options or {}))


def _hf(**options: Any) -> TacticGenerator:
    from proofsearch.generate.hf import HFTacticGenerator

    return HFTacticGenerator(**options)


def _openai(**options: Any) -> TacticGenerator:
    from proofsearch.generate.openai import OpenAITacticGenerator

    return OpenAITacticGenerator(**options)


def _vllm(**options: Any) -> TacticGenerator:
    from proofsearch.generate.vllm import VLLMTacticGenerator

    return VLLMTacticGenerator(**options)
