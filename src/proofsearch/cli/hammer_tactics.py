"""``search --hammer-tactics``: CoqHammer's tactics as a stage of the default schedule.

The ``hammer`` stage of ``knn-portfolio``'s schedule (:mod:`proofsearch.generate.hammer`)
offers ``sauto``, ``hauto use: ...`` and friends, which exist only after ``From Hammer
Require Import Tactics.``. With the option on, that stage's search opens each theorem
with the import after its header (the other stages never see it); the re-check refuses
a proof that uses a library it loads beyond the header, and a proof found by the stage
carries it in its results line (``header_suffix``), so ``proofsearch check`` and
``export`` reproduce it. ``auto`` turns it on where it can work: Coq, CoqHammer's
tactics installed, and a schedule with the stage. The default is ``off``: on the four
tuning slices the search proved as many lemmas with the stage as without it, once
deadlines were kept (100 and 100, docs/generators.md).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from proofsearch.cli.errors import CommandError

CHOICES = ("auto", "on", "off")


def add_option(group: argparse._ArgumentGroup) -> None:
    group.add_argument(
        "--hammer-tactics", choices=CHOICES, default="off",
        help="CoqHammer's sauto/hauto as the default schedule's 'hammer' stage, with "
        "'From Hammer Require Import Tactics.' after the header for that stage (auto: when "
        "CoqHammer is installed; default: off, docs/generators.md says why)",
    )  # fmt: skip


def schedule_has_hammer(generator: str, options: Mapping[str, Any]) -> bool:
    """Whether ``generator`` (with its options) runs a ``hammer`` stage."""
    from proofsearch.generate.registry import DEFAULT_SCHEDULE, SCHEDULE_STAGES
    from proofsearch.generate.schedule import parse_schedule

    if generator != "knn-portfolio":
        return False
    schedule = str(options.get("schedule", DEFAULT_SCHEDULE))
    return any(name == "hammer" for name, _ in parse_schedule(schedule, SCHEDULE_STAGES))


def tactics_installed(coqc: str) -> bool:
    """Whether this Coq has CoqHammer's tactics (``Hammer/Tactics/Tactics.vo``)."""
    import subprocess

    from proofsearch.env.coq.version import coq_where

    try:
        return (coq_where(coqc) / "user-contrib" / "Hammer" / "Tactics" / "Tactics.vo").is_file()
    except (OSError, subprocess.CalledProcessError):
        return False


def hammer_tactics_wanted(
    choice: str, prover: str, generator: str, generator_options: Mapping[str, Any], coqc: str
) -> bool:
    """Whether to add CoqHammer's import: ``on`` where it cannot work is an error."""
    if choice == "off":
        return False
    staged = prover == "coq" and schedule_has_hammer(generator, generator_options)
    if choice == "auto":
        return staged and tactics_installed(coqc)
    if not staged:
        raise CommandError(
            "--hammer-tactics on",
            f"only the knn-portfolio generator's schedule runs a 'hammer' stage (here: "
            f"--prover {prover}, --generator {generator})",
            "use the default generator with --index, and keep 'hammer' in "
            "--gen-option schedule=...",
        )
    if not tactics_installed(coqc):
        raise CommandError(
            "--hammer-tactics on",
            f"CoqHammer's tactics are not installed for {coqc}",
            "install them (Debian: apt-get install libcoq-hammer), or pass --hammer-tactics off",
        )
    return True
