"""A model generator's options, checked before any work: names, types, and for ``hf``
the checkpoint folder (without loading the weights).

``hf``, ``openai`` and ``vllm`` hand their options on to a class whose constructor is
the only list of them. A typo (``--gen-option strategi=beam``), a value of the wrong
type (``max_new_tokens=abc``) or a checkpoint without a tokenizer used to surface as a
traceback from inside the run, on Ray after three actor restarts, and after
``--overwrite`` had emptied the results file. Here they are read from the class's
signature and refused with one line naming the option.
"""

from __future__ import annotations

import importlib
import inspect
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, Union

#: The class each model generator hands its options to.
MODEL_CLASSES = {
    "hf": "proofsearch.generate.hf:HFTacticGenerator",
    "openai": "proofsearch.generate.openai:OpenAITacticGenerator",
    "vllm": "proofsearch.generate.vllm:VLLMTacticGenerator",
}
#: Options the registry's factories take themselves (premise retrieval in the prompt).
_FACTORY_OPTIONS: dict[str, Any] = {"index": None, "retrieved_premises": int}
#: The command-line flag an option comes from, when it is not ``--gen-option``.
_FLAGS = {"model": "--model", "base_url": "--base-url", "index": "--index"}


def option_flag(key: str, value: Any) -> str:
    """How the user gave ``key``: ``--model M`` or ``--gen-option key=value``."""
    flag = _FLAGS.get(key)
    return f"{flag} {value}" if flag else f"--gen-option {key}={value}"


def check_model_options(name: str, options: Mapping[str, Any]) -> None:
    """Raise ``ValueError`` naming the first option generator ``name`` would refuse."""
    target = MODEL_CLASSES.get(name)
    if target is None:
        return
    module_name, _, class_name = target.partition(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    parameters = [
        p for p in inspect.signature(cls.__init__).parameters.values()
        if p.name != "self" and p.kind is not p.VAR_KEYWORD
    ]  # fmt: skip
    try:
        hints = typing.get_type_hints(cls.__init__)
    except Exception:  # an annotation that does not resolve here: names only
        hints = {}
    known = {p.name: hints.get(p.name) for p in parameters} | _FACTORY_OPTIONS
    for key, value in options.items():
        if key not in known:
            raise ValueError(
                f"{option_flag(key, value)}: generator {name} has no option {key!r}; "
                f"its options: {', '.join(sorted(known))}"
            )
        expected = _type_problem(value, known[key])
        if expected:
            raise ValueError(f"{option_flag(key, value)}: expected {expected}")
    if name == "openai":  # its values, checked by building it: it connects on first use
        try:
            cls(**{k: v for k, v in options.items() if k not in _FACTORY_OPTIONS})
        except ValueError as exc:
            given = ", ".join(
                option_flag(k, v) for k, v in options.items()
                if k not in _FLAGS and k not in _FACTORY_OPTIONS
            )  # fmt: skip
            raise ValueError(f"generator openai ({given or 'defaults'}): {exc}") from None
    if name == "hf":
        from proofsearch.generate.hf import check_checkpoint

        try:
            check_checkpoint(**{k: v for k, v in options.items() if k not in _FACTORY_OPTIONS})
        except OSError as exc:  # a folder or file missing: the user's input, said as such
            raise ValueError(str(exc)) from None


def _type_problem(value: Any, annotation: Any) -> str | None:
    """What ``value`` should have been, or ``None`` when it fits (or is not checked)."""
    if annotation is None or annotation is Any:
        return None
    choices = (
        typing.get_args(annotation)
        if typing.get_origin(annotation) in (Union, types.UnionType)
        else (annotation,)
    )
    if any(_fits(value, choice) for choice in choices):
        return None
    return " or ".join(_describe(choice) for choice in choices)


def _fits(value: Any, kind: Any) -> bool:
    if kind is type(None):
        return value is None
    if typing.get_origin(kind) is Literal:
        return value in typing.get_args(kind)
    if kind is bool:
        return isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind in (str, Path):
        return isinstance(value, str)
    return True  # lists, mappings, …: left to the class


def _describe(kind: Any) -> str:
    if typing.get_origin(kind) is Literal:
        return "one of " + ", ".join(repr(v) for v in typing.get_args(kind))
    names = {type(None): "null", bool: "true or false", int: "an integer", float: "a number"}
    return names.get(kind, "text" if kind in (str, Path) else getattr(kind, "__name__", str(kind)))
