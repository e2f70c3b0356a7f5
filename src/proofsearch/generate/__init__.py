"""Tactic generators behind one interface (see :mod:`proofsearch.generate.base`)."""

from proofsearch.generate.base import GenerationRequest, Suggestion, TacticGenerator
from proofsearch.generate.registry import GENERATORS, make_generator

__all__ = ["GENERATORS", "GenerationRequest", "Suggestion", "TacticGenerator", "make_generator"]
