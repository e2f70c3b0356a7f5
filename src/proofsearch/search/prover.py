"""Best-first proof search over the prover and generator interfaces (pure Python).

Semantics follow LeanAgent's and ReProver's ``BestFirstSearchProver``: the node with the
highest cumulative log-probability is expanded next; the outcome is ``proved``,
``failed`` (tree exhausted) or ``open`` (budget spent). Their known faults are fixed:

* a proof found in the expansion that crosses the deadline still counts, but no tactic
  starts after it (a stage keeps to its share, a theorem to its budget);
* ``max_expansions`` is exact (never one more);
* identical states are one node, and a better path raises a node's priority;
* the reported proof is the shortest found, and it is reported only after the prover
  re-checked it from scratch;
* a tactic that ran to the per-tactic limit :data:`SLOW_TIMEOUTS` times in a theorem's
  search is not tried again in it, whatever hint lemmas it is given
  (:func:`tactic_kind`): at the roots of held-out lemmas, ``firstorder`` took half to
  four fifths of the prover's time, most of it in timeouts (docs/generators.md, "Slow
  tactics").

A generator with a schedule (:mod:`proofsearch.generate.schedule`) gets one fresh
search per stage, each within its share of the theorem's budget. With
``reuse_outcomes``, stages on the theorem's own session share what their tactics did
(:class:`KnownOutcomes`): a later stage that expands a state an earlier one expanded does
not run the tactics already run there again, so it searches in the order a fresh search
would, with the time they took.
"""

from __future__ import annotations

import math
import re
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TypeVar

from proofsearch.env.base import (
    GUARD_REFUSAL,
    EnvError,
    Outcome,
    ProofSession,
    ProofState,
    Proved,
    Prover,
    ProverStartError,
    TacticError,
    TacticTimeout,
)
from proofsearch.generate.base import AnswerDeadline, Suggestion, TacticGenerator, answer_by
from proofsearch.search.result import (
    CHECK_DISAGREEMENT,
    FIRST_REFUSAL,
    GENERATOR_CUT,
    GENERATOR_ERROR,
    GENERATOR_LATE,
    GENERATOR_UNANSWERED,
    GUARD_REFUSALS,
    LATE_GENERATOR_S,
    OPEN_ERROR,
    STARTUP_ERROR,
    UNFINISHED_PROOF,
    SearchResult,
    Status,
    error_result,
)
from proofsearch.search.tree import SearchTree
from proofsearch.theorem import Theorem

_T = TypeVar("_T")

#: How many found proofs the re-check may refuse before a search gives up on the theorem.
MAX_REJECTIONS = 3
#: Timeouts of one kind of tactic after which a theorem's search stops trying that kind.
SLOW_TIMEOUTS = 1
#: Priority taken off a state for each open goal beyond one: of two states reached at the
#: same cost, the one with fewer goals first (docs/generators.md, "Fewer open goals first":
#: 4 more of the tuning slices' 125 lemmas, none lost).
GOAL_PENALTY = 0.5
#: Where a tactic's list of hint lemmas starts: the list changes from node to node (the
#: premises retrieved for each goal), what the automation costs does not.
_HINTS = re.compile(r"\s+(?:using|use:)\s.*$", re.S)


def tactic_kind(tactic: str) -> str:
    """A tactic, for counting its timeouts: its text without its hint lemmas
    (``firstorder using a, b`` and ``firstorder using c`` are both ``firstorder using``).
    A ``rewrite L`` or ``apply L`` stays itself: a slow rewrite says nothing of the others.
    """
    return " ".join(_HINTS.sub(" using", tactic.strip()).split())


@dataclass(frozen=True)
class SearchConfig:
    """Budgets of one theorem's search."""

    #: Wall-clock seconds for the search (generation and prover time included).
    timeout: float = 60.0
    #: Most nodes expanded; ``None``: no limit.
    max_expansions: int | None = None
    #: Tactics asked of the generator per expansion.
    num_sampled_tactics: int = 64
    #: When the tree is exhausted with time left, its nodes are expanded again, each time
    #: asking twice as many tactics (new ones only are applied), up to this many;
    #: ``None``: 4 × ``num_sampled_tactics``. Equal to ``num_sampled_tactics``: never.
    max_sampled_tactics: int | None = None
    #: Per-tactic limit in seconds; ``None``: the prover's default.
    tactic_timeout: float | None = None
    #: Re-check every proof from scratch before reporting it.
    check: bool = True
    #: Start ``timeout`` once the theorem is open (its header loaded), as the stdlib
    #: benchmark's baselines do; by default opening counts against it.
    budget_after_open: bool = False
    #: A kind of tactic (:func:`tactic_kind`) that ran to the per-tactic limit this many
    #: times is not tried again in the theorem's search; ``None``: always tried.
    slow_timeouts: int | None = SLOW_TIMEOUTS
    #: A schedule's later stages take the outcomes of tactics the earlier stages ran at
    #: the same state (:class:`KnownOutcomes`) instead of running them again. Off by
    #: default: on the tuning slices it proved no more (docs/generators.md, "A later stage
    #: and the earlier stage's work").
    reuse_outcomes: bool = False
    #: Priority taken off a state for each open goal beyond one (:class:`SearchTree`);
    #: 0: the cumulative log-prob alone orders the search.
    goal_penalty: float = GOAL_PENALTY
    #: Priority added to a state for each step from the root (:class:`SearchTree`);
    #: 0: the cumulative log-prob alone orders the search.
    depth_bonus: float = 0.0

    @property
    def widest(self) -> int:
        """The most tactics asked at one node (``max_sampled_tactics`` resolved)."""
        if self.max_sampled_tactics is None:
            return 4 * self.num_sampled_tactics
        return max(self.num_sampled_tactics, self.max_sampled_tactics)


def _given(override: _T | None, configured: _T) -> _T:
    """A keyword given to the prover wins over its config; ``None`` means not given."""
    return configured if override is None else override


@dataclass
class _Stopwatch:
    """Seconds spent in one part of the search, summed over its stretches."""

    seconds: float = 0.0

    @contextmanager
    def running(self) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds += time.perf_counter() - start


@dataclass
class _Clock:
    """Seconds spent in the generator (the actor) and in the prover (the environment),
    and the kinds of tactic that ran out of time (shared by a theorem's stages)."""

    actor: _Stopwatch = field(default_factory=_Stopwatch)
    environment: _Stopwatch = field(default_factory=_Stopwatch)
    applications: int = 0
    timeouts: Counter[str] = field(default_factory=Counter)
    #: Timeouts after which a kind of tactic is dropped (``SearchConfig.slow_timeouts``).
    slow_after: int | None = SLOW_TIMEOUTS
    #: Kinds whose prover process had to be killed: dropped after that one time.
    killed: set[str] = field(default_factory=set)
    #: Suggestions the prover's guard refused (a cheat, a command), and the first reason:
    #: a model author sees that the model writes commands, not only that it failed.
    refused: int = 0
    first_refusal: str = ""

    def too_slow(self, tactic: str) -> bool:
        limit = self.slow_after
        if limit is None or not self.timeouts:  # the usual case: nothing has timed out
            return False
        kind = tactic_kind(tactic)
        return self.timeouts[kind] >= limit or kind in self.killed

    def timed_out(self, tactic: str, outcome: TacticTimeout) -> None:
        """Count a timeout of ``tactic``. A kill costs a restart and a header replay
        (seconds in a long file), not just the per-tactic limit: one is enough."""
        kind = tactic_kind(tactic)
        self.timeouts[kind] += 1
        if outcome.killed:
            self.killed.add(kind)


class KnownOutcomes:
    """What tactics did at the states of one theorem's session, for its later stages.

    A schedule's stages search fresh trees (``knn`` for 5 s, then ``knn-portfolio``),
    and most of a later stage's tactics at a state are the earlier stage's: running them
    again cost the time the first run did. A new state, a failure and a timeout are
    kept; a closed proof is not (it ends the stage, or its re-check refused it and it
    must not be found again for free). A kept timeout is not counted again.
    """

    def __init__(self) -> None:
        self._outcomes: dict[tuple[str, str], Outcome] = {}

    def get(self, state: ProofState, tactic: str) -> Outcome | None:
        return self._outcomes.get((state.key, tactic))

    def keep(self, state: ProofState, tactic: str, outcome: Outcome) -> None:
        if isinstance(outcome, Proved):
            return
        if isinstance(outcome, TacticTimeout) and outcome.closing:
            return  # its Qed ran out of time: a later stage has its own deadline
        self._outcomes[(state.key, tactic)] = outcome


class BestFirstSearchProver:
    """Searches one theorem at a time with a prover and a tactic generator."""

    def __init__(
        self,
        prover: Prover,
        generator: TacticGenerator,
        config: SearchConfig | None = None,
        *,
        timeout: float | None = None,
        max_expansions: int | None = None,
        num_sampled_tactics: int | None = None,
    ) -> None:
        config = config or SearchConfig()
        self.prover = prover
        self.generator = generator
        self.config = replace(
            config,
            timeout=_given(timeout, config.timeout),
            max_expansions=_given(max_expansions, config.max_expansions),
            num_sampled_tactics=_given(num_sampled_tactics, config.num_sampled_tactics),
        )

    def search(self, theorem: Theorem) -> SearchResult:
        """Search ``theorem``; never raises for the theorem's own faults."""
        start = time.perf_counter()
        clock = _Clock(slow_after=self.config.slow_timeouts)
        try:
            with clock.environment.running():
                session = self.prover.open(theorem)
        except EnvError as exc:
            result = error_result(theorem, str(exc))
            if isinstance(exc, ProverStartError):  # not the theorem's fault: see cli.search
                result.extra[STARTUP_ERROR] = True
            else:
                result.extra[OPEN_ERROR] = True
            result.environment_time = clock.environment.seconds
            result.total_time = time.perf_counter() - start
            return result
        open_time = clock.environment.seconds
        restarts_before = self.prover.stats.restarts
        budget_start = time.perf_counter() if self.config.budget_after_open else start
        session.deadline = budget_start + self.config.timeout
        try:
            result = self._run_schedule(theorem, session, clock, session.deadline)
        finally:
            session.close()
        result.total_time = time.perf_counter() - start
        # Opening runs the header (Require, imports): worth knowing apart from the search.
        result.extra["open_time"] = round(open_time, 6)
        result.extra.update(session.facts)
        if clock.timeouts:  # where the prover's time went: kind → tactics that timed out
            result.extra["timeouts"] = dict(clock.timeouts.most_common())
        restarts = self.prover.stats.restarts - restarts_before
        if restarts:  # each one replays the header and the path: time the search lost
            result.extra["prover_restarts"] = restarts
        return result

    def _run_schedule(
        self, theorem: Theorem, session: ProofSession, clock: _Clock, end: float
    ) -> SearchResult:
        """One search per stage of the generator's schedule (one stage when it has none),
        each with a fresh tree, until one proves the theorem. A stage gets its share of
        the time left, so time an exhausted tree leaves goes to the later stages."""
        plan = list(self.generator.schedule())
        if not plan:
            return self._search(theorem, session, clock, self.generator, end, 0)
        known = KnownOutcomes() if self.config.reuse_outcomes else None
        nodes = expansions = 0
        stages: list[dict[str, object]] = []
        unfinished: object = None
        all_failed = True
        result: SearchResult | None = None
        #: A stage's found proof that the re-check refused, reported if no stage does better.
        refused: SearchResult | None = None
        for index, (name, share) in enumerate(plan):
            now = time.perf_counter()
            shares_left = sum(s for _, s in plan[index:])
            stage_end = end if index == len(plan) - 1 else now + (end - now) * share / shares_left
            generator = self.generator.stage(index)
            result = self._search_stage(
                theorem, session, clock, generator, stage_end, expansions, known
            )
            nodes += result.num_total_nodes
            expansions += result.num_searched_nodes
            result.num_total_nodes, result.num_searched_nodes = nodes, expansions
            stages.append(
                {"name": name, "status": result.status.value,
                 "seconds": round(time.perf_counter() - now, 3)}
            )  # fmt: skip
            if "stage_error" in result.extra:  # the stage could not open the theorem
                stages[-1]["error"] = result.extra.pop("stage_error")
            unfinished = unfinished or result.extra.get(UNFINISHED_PROOF)
            all_failed = all_failed and result.status is Status.FAILED
            spent = self.config.max_expansions is not None and (
                expansions >= self.config.max_expansions
            )
            if _rejected(result) and index < len(plan) - 1 and not spent:
                if refused is None or (_disagreed(result) and not _disagreed(refused)):
                    refused = result  # a later stage may find a proof without it
                    refused.extra["stage"] = name
                all_failed = False
                continue
            if result.status in (Status.PROVED, Status.ERROR):
                result.extra["stage"] = name
                break
            if spent:
                break
        assert result is not None
        if refused is not None and result.status is Status.PROVED:
            _keep_disagreement(result, [refused])
        elif refused is not None and (
            result.status in (Status.OPEN, Status.FAILED)
            or (_rejected(result) and not (_disagreed(result) and not _disagreed(refused)))
        ):
            refused.num_total_nodes, refused.num_searched_nodes = nodes, expansions
            refused.num_tactic_applications = result.num_tactic_applications
            refused.actor_time, refused.environment_time = (
                result.actor_time,
                result.environment_time,
            )
            result = refused
        if result.status not in (Status.PROVED, Status.ERROR):
            result.status = Status.FAILED if all_failed else Status.OPEN
            if unfinished:
                result.extra[UNFINISHED_PROOF] = unfinished
        result.extra["stages"] = stages
        return result

    def _search_stage(
        self,
        theorem: Theorem,
        session: ProofSession,
        clock: _Clock,
        generator: TacticGenerator,
        deadline: float,
        expanded_before: int,
        known: KnownOutcomes | None = None,
    ) -> SearchResult:
        """One stage's search, taking and keeping outcomes in ``known``; a generator that
        needs lines after the header gets the theorem opened with them (the prover's line
        keeps the header loaded, so only they and the statement run) and keeps its own
        outcomes (the lines change what tactics do), and only its proofs carry them
        (``header_suffix``)."""
        suffix = generator.header_suffix.strip()
        if not suffix or theorem.extra.get("header_suffix"):
            return self._search(
                theorem, session, clock, generator, deadline, expanded_before, known=known
            )
        staged = replace(theorem, extra={**theorem.extra, "header_suffix": suffix})
        try:
            with clock.environment.running():
                stage_session = self.prover.open(staged)
        except EnvError as exc:  # the suffix does not load here: this stage cannot run
            result = SearchResult(
                theorem, Status.FAILED,
                actor_time=clock.actor.seconds, environment_time=clock.environment.seconds,
                num_tactic_applications=clock.applications,
            )  # fmt: skip
            result.extra["stage_error"] = f"{suffix!r}: {exc}"
            return result
        stage_session.deadline = session.deadline
        try:
            # Its steps are not learned: they need the suffix, which other searches lack.
            return self._search(
                staged, stage_session, clock, generator, deadline, expanded_before, learn=False
            )
        finally:
            stage_session.close()

    def _search(
        self,
        theorem: Theorem,
        session: ProofSession,
        clock: _Clock,
        generator: TacticGenerator,
        deadline: float,
        expanded_before: int,
        learn: bool = True,
        known: KnownOutcomes | None = None,
    ) -> SearchResult:
        """One best-first search from the root until ``deadline`` (``expanded_before``:
        expansions earlier stages spent of ``max_expansions``; ``known``: outcomes of
        tactics earlier stages ran, taken instead of running them, and kept)."""
        config = self.config
        shown = theorem.without_answers()  # what the generator may see of the theorem
        tree = SearchTree(session.root, config.goal_penalty, config.depth_bonus)
        found: list[list[str]] = []
        #: A found proof's (goals, tactic) steps, for generators that learn from proofs.
        steps: dict[tuple[str, ...], list[tuple[str, str]]] = {}
        #: Why tactics that closed every goal were no proof (their ``Qed`` ran out of time).
        unfinished: list[str] = []
        expansions = 0
        #: Times the exhausted tree was reopened for wider expansions.
        widenings = 0
        status = Status.OPEN
        result: SearchResult | None = None
        #: Found proofs the re-check refused (the first is reported if nothing else is found).
        rejections: list[SearchResult] = []
        #: How far past the deadline the generator's last call returned (≤ 0: before).
        late = float("-inf")
        #: Whether the deadline cut the generator's last call short.
        cut = False
        while True:
            if (
                config.max_expansions is not None
                and expanded_before + expansions >= config.max_expansions
            ):
                break
            if time.perf_counter() >= deadline:
                break
            node = tree.pop()
            if node is None and tree.reopen(config.widest):
                widenings += 1
                node = tree.pop()
            if node is None:
                status = Status.FAILED
                break
            node.expanded = True
            expansions += 1
            width = node.width = node.next_width(config.num_sampled_tactics, config.widest)
            try:
                with clock.actor.running(), answer_by(deadline):
                    suggestions = generator.generate(node.state.text, shown, width)
                late = max(late, time.perf_counter() - deadline)
                _check_suggestions(suggestions)
            except AnswerDeadline:  # the time ran out while the generator waited
                cut = True
                break
            except Exception as exc:  # a generator's failure ends this theorem, not the run
                failed = self._finish(
                    theorem, Status.ERROR, clock, tree, expansions,
                    error=f"tactic generator failed: {type(exc).__name__}: {exc}",
                )  # fmt: skip
                failed.extra[GENERATOR_ERROR] = True
                return failed
            if len(suggestions) < width and not generator.stochastic:
                node.width = config.widest  # the generator has nothing more for this node
            suggestions = [
                s for s in suggestions
                if s.tactic not in node.tried and not clock.too_slow(s.tactic)
            ]  # fmt: skip
            suggestions, outcomes, ran = self._apply(
                session, node.state, suggestions, clock, deadline, known
            )
            node.tried.update(s.tactic for s in suggestions)
            for suggestion, outcome, fresh in zip(suggestions, outcomes, ran, strict=True):
                if isinstance(outcome, Proved):
                    found.append([*node.shortest_path(), suggestion.tactic])
                    steps[tuple(found[-1])] = [
                        *node.shortest_steps(),
                        (node.state.text, suggestion.tactic),
                    ]
                    if list(outcome.path) != found[-1]:
                        found.append(list(outcome.path))
                elif isinstance(outcome, ProofState):
                    tree.add_edge(node, suggestion.tactic, outcome, suggestion.logprob)
                elif isinstance(outcome, TacticTimeout) and outcome.closing:
                    unfinished.append(outcome.message)
                elif isinstance(outcome, TacticTimeout) and fresh:
                    clock.timed_out(suggestion.tactic, outcome)
            if found:
                result = self._report_proof(theorem, found, clock, tree, expansions)
                if not _rejected(result):
                    break
                # The re-check refused it (an axiom the theorem may not use, or a name that
                # differs between the two provers: a disagreement): keep looking, while time
                # is left, up to MAX_REJECTIONS refusals.
                rejections.append(result)
                found.clear()
                result = None
                if len(rejections) >= MAX_REJECTIONS or time.perf_counter() >= deadline:
                    break
        if result is None and rejections:
            result = self._refusal(_reported(rejections), theorem, clock, tree, expansions)
        elif result is not None and rejections:
            _keep_disagreement(result, rejections)
        elif result is None:
            result = self._finish(theorem, status, clock, tree, expansions)
            if unfinished:
                result.extra[UNFINISHED_PROOF] = unfinished[0]
        if widenings:
            result.extra["widenings"] = widenings
        if late > LATE_GENERATOR_S:  # a generator that does not honour answer_by
            result.extra[GENERATOR_LATE] = round(late, 3)
        if cut:
            result.extra[GENERATOR_CUT] = True
            if expanded_before + expansions == 1:  # the theorem's first call, any stage
                result.extra[GENERATOR_UNANSWERED] = True
        if learn and result.status is Status.PROVED and result.proof is not None:
            learned = steps.get(tuple(result.proof))
            if learned is not None:
                self.generator.learn(shown, learned)
        return result

    def _apply(
        self,
        session: ProofSession,
        state: ProofState,
        suggestions: list[Suggestion],
        clock: _Clock,
        deadline: float,
        known: KnownOutcomes | None,
    ) -> tuple[list[Suggestion], list[Outcome], list[bool]]:
        """Apply the suggestions at ``state``: the suggestions that have an outcome, their
        outcomes, and whether each was run now (``False``: taken from ``known``). Those
        past the deadline did not start: they are left out and not tried."""
        taken = [None if known is None else known.get(state, s.tactic) for s in suggestions]
        to_run = [s.tactic for s, got in zip(suggestions, taken, strict=True) if got is None]
        with clock.environment.running():
            run = session.apply_all(state, to_run, self.config.tactic_timeout, deadline)
        clock.applications += len(run)
        if known is not None:
            for tactic, ran in zip(to_run, run, strict=False):
                known.keep(state, tactic, ran)
        kept: list[Suggestion] = []
        outcomes: list[Outcome] = []
        fresh: list[bool] = []
        next_run = iter(run)
        for suggestion, got in zip(suggestions, taken, strict=True):
            outcome = got if got is not None else next(next_run, None)
            if outcome is None:  # it did not start before the deadline
                continue
            kept.append(suggestion)
            outcomes.append(outcome)
            fresh.append(got is None)
            if isinstance(outcome, TacticError) and outcome.refused_by_guard and got is None:
                clock.refused += 1
                clock.first_refusal = clock.first_refusal or f"{suggestion.tactic!r}: " + (
                    outcome.message.removeprefix(GUARD_REFUSAL)
                )
        return kept, outcomes, fresh

    def _refusal(
        self,
        first: SearchResult,
        theorem: Theorem,
        clock: _Clock,
        tree: SearchTree,
        expansions: int,
    ) -> SearchResult:
        """The first refused proof's result, with the counts and times of the whole search
        (the search went on after it)."""
        result = self._finish(theorem, Status.ERROR, clock, tree, expansions, error=first.error)
        result.check_time = first.check_time
        result.extra.update(first.extra)
        return result

    def _report_proof(
        self,
        theorem: Theorem,
        found: list[list[str]],
        clock: _Clock,
        tree: SearchTree,
        expansions: int,
    ) -> SearchResult:
        """Re-check the shortest proof found (then the others) and report the first that
        passes. Of proofs with as many steps, the one with less text goes first: several
        tactics of one expansion may close the goal, and ``by []`` reads better than the
        ``apply: mop1x`` scored above it (audit 49)."""
        candidates = sorted(
            {tuple(p): p for p in found}.values(), key=lambda p: (len(p), sum(map(len, p)))
        )
        if not self.config.check:
            return self._finish(theorem, Status.PROVED, clock, tree, expansions, candidates[0])
        messages = []
        disagreement = False
        check_start = time.perf_counter()
        for proof in candidates:
            verdict = self.prover.check(theorem, proof)
            disagreement = disagreement or verdict.disagreement
            if verdict.ok:
                result = self._finish(theorem, Status.PROVED, clock, tree, expansions, proof)
                result.checked = True
                result.check_time = time.perf_counter() - check_start
                if verdict.axioms:
                    result.extra["axioms"] = list(verdict.axioms)
                return result
            messages.append(verdict.message)
        result = self._finish(
            theorem, Status.ERROR, clock, tree, expansions,
            error=f"the search found a proof but the re-check rejected it: {messages[0]}",
        )  # fmt: skip
        result.check_time = time.perf_counter() - check_start
        result.extra["rejected_proof"] = candidates[0]
        if disagreement:  # not a cheat: the search's prover or the checker is wrong
            result.extra[CHECK_DISAGREEMENT] = True
        return result

    def _finish(
        self,
        theorem: Theorem,
        status: Status,
        clock: _Clock,
        tree: SearchTree,
        expansions: int,
        proof: list[str] | None = None,
        error: str | None = None,
    ) -> SearchResult:
        result = SearchResult(
            theorem=theorem,
            status=status,
            proof=proof,
            error=error,
            actor_time=clock.actor.seconds,
            environment_time=clock.environment.seconds,
            num_total_nodes=len(tree),
            num_searched_nodes=expansions,
            num_tactic_applications=clock.applications,
        )
        if clock.refused:
            result.extra[GUARD_REFUSALS] = clock.refused
            result.extra[FIRST_REFUSAL] = clock.first_refusal[:300]
        return result


def _rejected(result: SearchResult) -> bool:
    """Was the result a found proof that the re-check refused, for whatever reason?"""
    return result.status is Status.ERROR and "rejected_proof" in result.extra


def _disagreed(result: SearchResult) -> bool:
    return bool(result.extra.get(CHECK_DISAGREEMENT))


def _reported(rejections: list[SearchResult]) -> SearchResult:
    """The refusal to report when nothing better was found: the first disagreement (a
    prover's or checker's fault is not to be hidden), else the first refusal."""
    return next((r for r in rejections if _disagreed(r)), rejections[0])


def _keep_disagreement(result: SearchResult, rejections: list[SearchResult]) -> None:
    """A proof found after a disagreement still says there was one (the run's summary
    counts it), and which proof the two provers disagreed on."""
    first = next((r for r in rejections if _disagreed(r)), None)
    if first is not None:
        result.extra[CHECK_DISAGREEMENT] = True
        result.extra["disagreement"] = {
            "proof": first.extra.get("rejected_proof"),
            "error": first.error,
        }


def _check_suggestions(suggestions: object) -> None:
    """A generator's answer must be a list of :class:`Suggestion` with text tactics and
    finite scores: anything else is the generator's failure (said as one, so that a run
    whose generator is broken stops), not an ``error`` row blamed on the theorem."""
    if not isinstance(suggestions, list | tuple):
        raise TypeError(f"generate returned {type(suggestions).__name__}, not a list")
    for item in suggestions:
        if not isinstance(item, Suggestion):
            raise TypeError(f"generate returned {item!r} among its suggestions, not a Suggestion")
        if not isinstance(item.tactic, str) or not math.isfinite(item.logprob):
            raise ValueError(f"generate returned {item!r}: a tactic must be text, a score finite")
