"""Typed requests (one line, validated) and the strict replay server itself."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from pydantic import ValidationError

from proofsearch.env.lean import LeanConfig, LeanProver
from proofsearch.env.lean.protocol import (
    CommandReply,
    CommandRequest,
    ErrorReply,
    ProtocolError,
    TacticReply,
    TacticRequest,
    UnpickleProofStateRequest,
    decode_reply,
    encode_request,
    parse_reply,
)
from proofsearch.env.registry import make_prover


def test_requests_are_one_line_and_a_blank_line():
    request = TacticRequest(
        tactic="induction x with\n| zero => rfl\n| succ n => simp", proofState=3
    )
    data = encode_request(request)
    assert data.endswith(b"\n\n") and data.count(b"\n") == 2
    assert json.loads(data) == {
        "tactic": "induction x with\n| zero => rfl\n| succ n => simp",
        "proofState": 3,
    }
    assert "ℝ".encode() in encode_request(CommandRequest(cmd="example : (1 : ℝ) = 1 := rfl"))
    assert json.loads(encode_request(CommandRequest(cmd="import Mathlib"))) == {
        "cmd": "import Mathlib"
    }
    assert json.loads(encode_request(UnpickleProofStateRequest(unpickleProofStateFrom="a"))) == {
        "unpickleProofStateFrom": "a"
    }


@pytest.mark.parametrize(
    "build",
    [
        lambda: TacticRequest(tactic="simp", proofState=-1),
        lambda: TacticRequest(tactic="", proofState=0),
        lambda: TacticRequest(tactic="simp", proofState="0"),
        lambda: TacticRequest(tactic="simp\x00", proofState=0),
        lambda: TacticRequest(tactic="simp \ud800", proofState=0),
        lambda: TacticRequest(tactic="simp", proofState=0, env=1),
        lambda: CommandRequest(cmd="x", env=True),
        lambda: CommandRequest(cmd="x", infotree="everything"),
    ],
)
def test_requests_of_no_known_shape_cannot_be_built(build):
    with pytest.raises(ValidationError):
        build()


def test_reply_shapes():
    assert isinstance(parse_reply({"env": 0}), CommandReply)
    assert isinstance(parse_reply({"message": "Unknown environment."}), ErrorReply)
    tactic = parse_reply({"proofState": 1, "goals": ["⊢ Nat"], "proofStatus": "Incomplete"})
    assert isinstance(tactic, TacticReply) and tactic.goals == ("⊢ Nat",)
    for bad in ([], {"goals": []}, {"env": "zero"}, {"proofState": 1, "goals": "⊢ Nat"}):
        with pytest.raises(ProtocolError):
            parse_reply(bad)
    with pytest.raises(ProtocolError, match="not JSON"):
        decode_reply(b"uncaught exception: oops")


def test_config_from_plain_options():
    prover = make_prover(
        "lean",
        {
            "repl_command": "lake env ../repl/.lake/build/bin/repl",
            "project_dir": "/tmp",
            "tactic_timeout": 3,
            "allowed_axioms": ["propext"],
            "allow_native_decide": True,
        },
    )
    assert isinstance(prover, LeanProver)
    assert prover.config.allowed_axioms == ("propext",)
    assert prover.config.tactic_timeout == 3.0
    assert prover.config.command == ["lake", "env", "../repl/.lake/build/bin/repl"]
    with pytest.raises(ValueError, match="unknown Lean options: repl"):
        LeanConfig.from_options({"repl": "x"})
    with pytest.raises(ValueError, match="tactic_timeout"):
        LeanConfig.from_options({"tactic_timeout": "soon"})
    with pytest.raises(ValueError, match="must be positive"):
        LeanConfig.from_options({"tactic_timeout": 0})
    with pytest.raises(ValueError, match="empty"):
        LeanConfig.from_options({"repl_command": "  "})
    assert LeanConfig().memory_limit == 16384 * 1024 * 1024
    assert LeanConfig(memory_limit_mb=0).memory_limit is None


# -- the replay server -----------------------------------------------------------------


def serve(lean, fixture: str, stdin: str, *skip: int) -> subprocess.CompletedProcess[str]:
    # These tests look at the replay server itself, failures included.
    command = lean.replay_command(fixture, skip, fails="the server's own test")
    return subprocess.run(
        command, shell=True, input=stdin, capture_output=True, text=True, timeout=30
    )


def test_server_answers_recorded_requests_verbatim(lean, repl_dir):
    # Key order and spacing differ from the recording: compared as parsed JSON.
    stdin = '{ "cmd" :"def f : Nat := by sorry" }\n\n{"proofState": 0, "tactic": "exat 42"}\n\n'
    done = serve(lean, "core/unknown_tactic", stdin)
    assert done.returncode == 0, done.stderr
    recorded = (repl_dir / "core" / "unknown_tactic.expected.out").read_text()
    assert done.stdout == recorded.rstrip("\n") + "\n\n"
    replies = [json.loads(block) for block in done.stdout.split("\n\n") if block.strip()]
    assert replies[1] == {"message": "Lean error:\n<input>:1:1: unknown tactic"}


def test_server_reads_requests_like_the_repl(lean):
    # Lines of one request are joined with the newline dropped; comments get no reply.
    stdin = '# a comment\n\n{"cmd" :\n "def f : Nat := by sorry"}\n\n'
    done = serve(lean, "core/tactic_sorry", stdin)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["env"] == 0


@pytest.mark.parametrize(
    ("stdin", "code", "message"),
    [
        ('{"cmd": "def g : Nat := by sorry"}\n\n', 3, "request 1 differs from the transcript"),
        ('{"cmd": "def f : Nat := by sorry"}\n\n{"cmd": "x"}\n\n', 4, "beyond the transcript"),
        ("not json\n\n", 1, "could not parse JSON"),
        ("\n", 1, "could not parse JSON"),  # a stray blank line is an empty request
    ],
)
def test_server_fails_loudly(lean, stdin, code, message):
    done = serve(lean, "core/tactic_sorry", stdin)
    assert done.returncode == code
    assert message in done.stderr


def test_server_skip(lean):
    stdin = '{"cmd": "theorem ex : False := sorry"}\n\n'
    assert serve(lean, "core/self_proof_check", stdin).returncode == 3
    done = serve(lean, "core/self_proof_check", stdin, 1)
    assert done.returncode == 0 and json.loads(done.stdout)["sorries"][0]["proofState"] == 0


def test_every_transcript_loads(replay_module, repl_dir):
    loaded = 0
    for requests in sorted(repl_dir.glob("*/*.in")):
        replies = requests.with_name(requests.name[:-3] + ".expected.out")
        if replies.exists():
            assert replay_module.load_transcript(requests, replies)
            loaded += 1
    assert loaded == 71  # every .expected.out in core/ and mathlib/


def test_server_is_runnable_as_a_script(replay_module):
    done = subprocess.run(
        [sys.executable, replay_module.__file__, "--help"], capture_output=True, text=True
    )
    assert done.returncode == 0 and "replays a transcript" in done.stdout
