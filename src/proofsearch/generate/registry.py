"""Names of tactic generators, resolved lazily so that model generators' heavy imports
(torch, transformers, vllm) are paid only by those who use them."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from proofsearch.generate.base import TacticGenerator

if TYPE_CHECKING:
    from proofsearch.generate.knn.corpus import IndexPaths

#: generator name -> "module:factory"; each factory takes keyword options.
GENERATORS: dict[str, str] = {
    "fixed": "proofsearch.generate.registry:_fixed",
    "portfolio": "proofsearch.generate.registry:_portfolio",
    "hf": "proofsearch.generate.registry:_hf",
    "openai": "proofsearch.generate.registry:_openai",
    "vllm": "proofsearch.generate.registry:_vllm",
    "knn": "proofsearch.generate.registry:_knn",
    "knn-portfolio": "proofsearch.generate.registry:_knn_portfolio",
    "premises": "proofsearch.generate.registry:_premises",
}

#: Generators that read a trace index (``index`` option: one trace folder, or a list of
#: them read as one); model generators read one too when given it (retrieval-augmented
#: prompts).
INDEXED_GENERATORS = frozenset({"knn", "knn-portfolio", "premises"})
MODEL_GENERATORS = frozenset({"hf", "openai", "vllm"})


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


def _with_retrieval(
    inner: TacticGenerator, index: IndexPaths | None, premises: int
) -> TacticGenerator:
    """``inner`` with ReProver-style retrieved premises in its prompts when ``index`` is given."""
    if index is None:
        return inner
    from proofsearch.generate.knn.corpus import load_corpus
    from proofsearch.generate.retrieval.augment import RetrievalAugmentedGenerator
    from proofsearch.generate.retrieval.premises import PremiseRetriever

    return RetrievalAugmentedGenerator(inner, PremiseRetriever(load_corpus(index)), premises)


def _hf(
    index: IndexPaths | None = None, retrieved_premises: int = 16, **options: Any
) -> TacticGenerator:
    from proofsearch.generate.hf import HFTacticGenerator

    return _with_retrieval(HFTacticGenerator(**options), index, retrieved_premises)


def _openai(
    index: IndexPaths | None = None, retrieved_premises: int = 16, **options: Any
) -> TacticGenerator:
    from proofsearch.generate.openai import OpenAITacticGenerator

    return _with_retrieval(OpenAITacticGenerator(**options), index, retrieved_premises)


def _vllm(
    index: IndexPaths | None = None, retrieved_premises: int = 16, **options: Any
) -> TacticGenerator:
    from proofsearch.generate.vllm import VLLMTacticGenerator

    return _with_retrieval(VLLMTacticGenerator(**options), index, retrieved_premises)


def _check_kind(key: str, value: Any, default: Any) -> None:
    """A number or switch option given a value of another kind (``neighbours=abc``) was a
    TypeError once the run started, after ``--index auto`` had traced (audit 45)."""
    if isinstance(default, bool):
        wrong = not isinstance(value, bool)
        kind = "true or false"
    elif isinstance(default, int | float):
        wrong = isinstance(value, bool) or not isinstance(value, int | float)
        if isinstance(default, int) and isinstance(value, float) and not value.is_integer():
            wrong = True
        kind = "a whole number" if isinstance(default, int) else "a number"
    else:
        return
    if wrong:
        shown = str(default).lower() if isinstance(default, bool) else default
        raise ValueError(f"--gen-option {key}={value}: must be {kind}; its default is {shown}")


def check_options(name: str, options: Mapping[str, Any]) -> None:
    """Refuse options the built-in generator ``name`` would ignore, and a bad ``schedule``,
    before any work (its factory drops unknown keywords). A generator that hands its
    options on to a model's class is not checked here: the class itself refuses them."""
    import inspect

    target = GENERATORS.get(name)
    if target is None:
        return
    module_name, _, attribute = target.partition(":")
    factory = getattr(importlib.import_module(module_name), attribute)
    parameters = inspect.signature(factory).parameters.values()
    if any(p.kind is p.VAR_KEYWORD and p.name != "_" for p in parameters):
        return
    known = sorted(p.name for p in parameters if p.kind is not p.VAR_KEYWORD)
    for key in options:
        if key not in known:
            raise ValueError(
                f"--gen-option {key}: generator {name} has no option {key!r}; "
                f"its options: {', '.join(known)}"
            )
    for parameter in parameters:
        if parameter.name in options:
            _check_kind(parameter.name, options[parameter.name], parameter.default)
    if name == "knn-portfolio" and "schedule" in options:
        from proofsearch.generate.schedule import parse_schedule

        parse_schedule(str(options["schedule"]), SCHEDULE_STAGES)
    ranking = options.get("premise_ranking")
    if ranking is not None and ranking not in ("fitted", "match", "bm25"):
        raise ValueError(
            f"--gen-option premise_ranking={ranking}: not a ranking; choose match (the default), "
            "fitted or bm25"
        )
    for flag in ("unfold", "adapt_names", "typed_features", "analogies"):
        value = options.get(flag)
        if value is not None and not isinstance(value, bool):
            raise ValueError(
                f"--gen-option {flag}={value}: not true or false; give true (the default) or false"
            )
    dropped = options.get("dropped_features")
    if dropped is not None and dropped not in ("ignored", "unseen"):
        raise ValueError(
            f"--gen-option dropped_features={dropped}: not a choice; choose ignored (the default) "
            "or unseen"
        )
    _check_count(options, "namesakes", "premises named after the theorem the templates take", 2)
    _check_count(options, "siblings", "premises one name edit away the templates take", 0)
    _check_count(options, "hint_premises", "retrieved premises `eauto using …` and its kin take", 4)
    if name == "knn-portfolio" and "knn_share" in options:
        share = options["knn_share"]
        if isinstance(share, bool) or not isinstance(share, int | float) or not 0 <= share <= 1:
            raise ValueError(
                f"--gen-option knn_share={share}: not a fraction; give a number from 0 to 1"
            )


def _check_count(options: Mapping[str, Any], key: str, what: str, default: int) -> None:
    """Refuse an option ``key`` that is not a whole number of 0 or more."""
    value = options.get(key)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise ValueError(
            f"--gen-option {key}={value}: give how many {what} (0 or more; {default} by default)"
        )


def _need_index(name: str, index: IndexPaths | None) -> IndexPaths:
    if not index:
        raise ValueError(f"generator {name} needs an index: --index TRACE_DIR (option 'index')")
    return index


def _knn_parts(
    name: str,
    index: IndexPaths | None,
    neighbours: int,
    premises: int,
    premise_ranking: str,
    unfold: bool = True,
    namesakes: int = 2,
    siblings: int | None = None,
    hint_premises: int = 4,
    adapt_names: bool = True,
    dropped_features: str = "ignored",
    typed_features: bool = True,
    analogies: bool = True,
) -> list[TacticGenerator]:
    from proofsearch.generate.knn.corpus import load_corpus
    from proofsearch.generate.knn.generator import KnnGenerator
    from proofsearch.generate.retrieval.templates import PremiseTemplateGenerator

    # cached: one copy per process
    corpus = load_corpus(_need_index(name, index), typed_features=typed_features)
    knn = KnnGenerator(
        corpus,
        neighbours=neighbours,
        adapt_names=adapt_names,
        dropped_features=dropped_features,
        analogies=analogies,
    )
    parts: list[TacticGenerator] = [knn]
    if premises > 0:
        parts.append(
            PremiseTemplateGenerator(
                corpus,
                premises=premises,
                ranking=premise_ranking,
                unfold=unfold,
                namesakes=namesakes,
                **({} if siblings is None else {"siblings": siblings}),
                eauto_premises=hint_premises,
            )
        )
    return parts


#: How the premise templates order the retrieved premises (``--gen-option
#: premise_ranking=fitted|match``). ``match`` (fit, coverage, BM25) stays the default: the
#: fitted score finds the premise a traced step used more often, but did not pass the
#: tuning-slice rule (docs/generators.md, "Premises ranked by a fitted score").
DEFAULT_PREMISE_RANKING = "match"

#: Names of the parts of the knn family, for their calibration.
_PART_NAMES = ("knn", "premises")


def _knn(
    index: IndexPaths | None = None,
    neighbours: int = 0,
    premises: int = 8,
    calibrate: bool = False,
    premise_ranking: str = DEFAULT_PREMISE_RANKING,
    unfold: bool = True,
    namesakes: int = 2,
    siblings: int | None = None,
    hint_premises: int = 4,
    adapt_names: bool = True,
    dropped_features: str = "ignored",
    typed_features: bool = True,
    analogies: bool = True,
    **_: Any,
) -> TacticGenerator:
    """Nearest recorded states' tactics merged with premise templates (``premises=0``: none),
    by raw score, or on the scale calibrated on the trace with ``calibrate=true`` (off by
    default: it proved fewer lemmas on a held-out slice, docs/generators.md). ``unfold``:
    the templates offer ``unfold D`` for the definitions the goal mentions."""
    from proofsearch.generate.merged import calibrated_merge

    parts = _knn_parts(
        "knn", index, neighbours, premises, premise_ranking, unfold, namesakes, siblings,
        hint_premises, adapt_names, dropped_features, typed_features, analogies,
    )  # fmt: skip
    return calibrated_merge(parts, _PART_NAMES[: len(parts)], _need_index("knn", index), calibrate)


#: How ``knn-portfolio`` shares a theorem's budget among its stages by default
#: (``--gen-option schedule=...`` overrides; one stage name: no schedule). Measured in
#: docs/generators.md ("Schedule").
DEFAULT_SCHEDULE = "knn:1,hammer:0.5,knn-portfolio:2.5"
#: The fraction of each expansion's tactics ``knn-portfolio`` keeps for knn's own best
#: (``--gen-option knn_share=...``). Measured in docs/generators.md ("knn's share").
DEFAULT_KNN_SHARE = 0.0
#: Stages a ``knn-portfolio`` schedule may name.
SCHEDULE_STAGES = ("knn-portfolio", "knn", "portfolio", "hammer")


def _knn_portfolio(
    index: IndexPaths | None = None,
    neighbours: int = 0,
    premises: int = 8,
    prover: str = "coq",
    tactics_file: str | None = None,
    calibrate: bool = False,
    schedule: str = DEFAULT_SCHEDULE,
    knn_share: float = DEFAULT_KNN_SHARE,
    hammer_tactics: bool = False,
    premise_ranking: str = DEFAULT_PREMISE_RANKING,
    unfold: bool = True,
    namesakes: int = 2,
    siblings: int | None = None,
    hint_premises: int = 4,
    adapt_names: bool = True,
    dropped_features: str = "ignored",
    typed_features: bool = True,
    analogies: bool = True,
    **_: Any,
) -> TacticGenerator:
    """``knn`` and the portfolio merged: the default for Coq when an index is given.

    With a ``schedule`` of several stages (``"knn-portfolio:3,knn:1"``), the theorem's
    budget is shared among searches by those generators, one after another; all stages
    share one index and one memory of learned proofs. ``knn_share``: the fraction of each
    expansion's tactics kept for knn's own best suggestions, whatever the premise
    templates and the portfolio score (the rest go by score). ``hammer_tactics``: the
    ``hammer`` stage runs CoqHammer's tactics (they must be installed; ``proofsearch
    search --hammer-tactics`` decides); off, the schedule leaves that stage out and its
    share goes to the stage after it."""
    from proofsearch.generate.hammer import HammerTacticsGenerator
    from proofsearch.generate.knn.corpus import load_corpus
    from proofsearch.generate.merged import calibrated_merge
    from proofsearch.generate.schedule import (
        ScheduledGenerator,
        Stage,
        parse_schedule,
        without_stage,
    )

    plan = parse_schedule(schedule, SCHEDULE_STAGES)
    if not hammer_tactics:
        plan = without_stage(plan, "hammer")
    index = _need_index("knn-portfolio", index)
    knn_parts = _knn_parts(
        "knn-portfolio", index, neighbours, premises, premise_ranking, unfold, namesakes, siblings,
        hint_premises, adapt_names, dropped_features, typed_features, analogies,
    )  # fmt: skip
    knn_names = list(_PART_NAMES[: len(knn_parts)])
    portfolio = _portfolio(prover=prover, tactics_file=tactics_file)
    signature = f"{prover}/{tactics_file or ''}"
    built: dict[str, TacticGenerator] = {}

    def build(name: str) -> TacticGenerator:
        if name not in built:
            if name == "portfolio":
                built[name] = portfolio
            elif name == "hammer":
                built[name] = HammerTacticsGenerator(
                    load_corpus(index, typed_features=typed_features)
                )
            elif name == "knn":
                built[name] = calibrated_merge(knn_parts, knn_names, index, calibrate)
            else:
                reserve = [knn_share] + [0.0] * len(knn_parts)
                built[name] = calibrated_merge(
                    [*knn_parts, portfolio], [*knn_names, "portfolio"], index, calibrate,
                    signature, reserve,
                )  # fmt: skip
        return built[name]

    if len(plan) == 1:
        return build(plan[0][0])
    return ScheduledGenerator([Stage(name, share, build(name)) for name, share in plan])


def _premises(
    index: IndexPaths | None = None,
    premises: int = 8,
    premise_ranking: str = DEFAULT_PREMISE_RANKING,
    unfold: bool = True,
    namesakes: int = 2,
    siblings: int | None = None,
    hint_premises: int = 4,
    typed_features: bool = True,
    **_: Any,
) -> TacticGenerator:
    from proofsearch.generate.knn.corpus import load_corpus
    from proofsearch.generate.retrieval.templates import PremiseTemplateGenerator

    corpus = load_corpus(_need_index("premises", index), typed_features=typed_features)
    return PremiseTemplateGenerator(
        corpus, premises=premises, ranking=premise_ranking, unfold=unfold, namesakes=namesakes,
        **({} if siblings is None else {"siblings": siblings}),
        eauto_premises=hint_premises,
    )  # fmt: skip
