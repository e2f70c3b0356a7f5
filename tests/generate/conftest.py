"""Tiny checkpoints for the model-generator tests, built once per session (well under a
second) by :mod:`tests.support.tiny`, since no weights can be downloaded."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from proofsearch.theorem import Theorem

GOALS = [
    "n : ℕ\n⊢ n + 0 = n",
    "⊢ True",
    "a b c : ℕ\nh : a = b\n⊢ a + c = b + c",
    "p q : Prop\nhp : p\nhq : q\n⊢ p ∧ q\n\ncase right\n⊢ q",
]

THEOREM = Theorem("t", "theorem t : True := by")


@dataclass(frozen=True)
class TinyModels:
    t5: Path
    gpt2: Path
    bpe: Path

    def path(self, name: str) -> Path:
        path: Path = getattr(self, name)
        return path


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory: pytest.TempPathFactory) -> TinyModels:
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from tests.support import tiny

    # Tiny models run fastest on one thread, and a loaded CI machine's OpenMP threads
    # spin against each other (20–40× slower measured on 2 busy cores).
    torch.set_num_threads(1)
    root = tmp_path_factory.mktemp("tiny-models")
    return TinyModels(
        t5=tiny.build_t5(root / "t5"),
        gpt2=tiny.build_gpt2_bytes(root / "gpt2"),
        bpe=tiny.build_gpt2_bpe(root / "bpe"),
    )
