"""Version detection and what depends on it, against the installed Coq (any supported one).

``make test-coq-versions`` runs this file on Coq 8.20 and Rocq 9.2 as well: the tests
that use the real binaries check the version-dependent answers there.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from proofsearch.cli import main
from proofsearch.env import EnvError
from proofsearch.env.coq import CoqConfig, CoqProver
from proofsearch.env.coq.idetop import CoqIdeTop
from proofsearch.env.coq.version import (
    SUPPORTED,
    CoqVersion,
    binary_version,
    check_supported,
    coq_env,
    find_idetop,
    stdlib_module,
    stdlib_root,
    supported_range,
)
from proofsearch.theorem import Theorem

ADD_0 = Theorem("add_0", "Theorem add_0_r' : forall n : nat, n + 0 = n.", "")


def fake_idetop(folder: Path, version: str, name: str = "coqidetop-fake") -> Path:
    """A stand-in for a Coq that cannot be installed here: it answers ``--version``, then
    ``About`` (with ``version``) and ``Init``, and nothing else."""
    fake = folder / name
    fake.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = --version ]; then\n'
        f"  echo 'The Coq Proof Assistant, version {version}'; exit 0\n"
        "fi\n"
        f'printf \'<value val="good"><coq_info><string>{version}</string><string>x</string>'
        "<string>x</string><string>x</string></coq_info></value>"
        '<value val="good"><state_id val="1"/></value>\'\nsleep 5\n'
    )
    fake.chmod(0o755)
    return fake


def test_versions_parse_as_each_release_prints_them() -> None:
    # 8.x prints a patch number; Rocq 9.2 prints "9.2" (in About and in --version).
    assert CoqVersion.parse("8.16.1").release == (8, 16)
    assert CoqVersion.parse("9.2").release == (9, 2) and CoqVersion.parse("9.2").patch == 0
    assert CoqVersion.parse("9.1+rc1").release == (9, 1)
    assert CoqVersion.parse("8.20.1").stdlib_prefix == "Coq"
    assert CoqVersion.parse("9.0.0").stdlib_prefix == "Stdlib"
    with pytest.raises(EnvError, match="cannot read a Coq version"):
        CoqVersion.parse("dev")


def test_supported_range_and_refusal() -> None:
    assert supported_range() == "8.16-8.20, 9.0-9.2"
    for text in ("8.16.1", "8.17.0", "8.18.0", "8.19.2", "8.20.1", "9.0.0", "9.1.0", "9.2"):
        check_supported(CoqVersion.parse(text), "coqidetop")
    for text in ("8.15.2", "9.3", "10.0"):
        with pytest.raises(EnvError, match=r"allow_unsupported_version=true"):
            check_supported(CoqVersion.parse(text), "coqidetop")
        with pytest.warns(RuntimeWarning, match=f"Coq {text} .*not a supported version"):
            check_supported(CoqVersion.parse(text), "coqidetop", allow=True)
    assert (8, 15) not in SUPPORTED and (9, 3) not in SUPPORTED


def test_unsupported_version_is_refused_unless_allowed(tmp_path: Path) -> None:
    fake = fake_idetop(tmp_path, "8.15.2")
    coq = CoqProver(CoqConfig(binary=str(fake)))
    with pytest.raises(EnvError, match=r"Coq 8\.15\.2 .*is not supported"):
        coq.open(ADD_0)
    with pytest.warns(RuntimeWarning, match=r"Coq 8\.15\.2"):
        top = CoqIdeTop(str(fake), allow_unsupported_version=True)
    try:
        assert top.version == "8.15.2" and top.coq_version.release == (8, 15)
    finally:
        top.close()


def test_cli_refuses_an_unsupported_coq_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    theorems = tmp_path / "t.jsonl"
    theorems.write_text(json.dumps({"name": "t", "statement": ADD_0.statement}) + "\n")
    out = tmp_path / "r.jsonl"
    fake = str(fake_idetop(tmp_path, "10.0"))
    args = ["search", str(theorems), "--output", str(out), "--quiet", "--coq-binary", fake]
    assert main(args) == 1
    assert "Coq 10.0" in capsys.readouterr().err and not out.exists()
    assert main([*args[:-1], "coqidetop.opt", "--coqc", fake]) == 1
    assert "allow_unsupported_version" in capsys.readouterr().err and not out.exists()
    out.write_text("")
    assert main(["check", str(out), str(theorems), "--coqc", fake]) == 1
    assert "Coq 10.0" in capsys.readouterr().err


def test_idetop_name_is_found_whichever_the_release_installs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 8.x installs coqidetop.opt, Rocq 9.2 only coqidetop: the default name finds either.
    fake_idetop(tmp_path, "9.2", name="coqidetop")
    monkeypatch.setenv("PATH", str(tmp_path))
    assert find_idetop("coqidetop.opt") == "coqidetop"
    assert find_idetop("/elsewhere/coqidetop.opt") == "/elsewhere/coqidetop.opt"


def test_coq_processes_run_on_one_ocaml_domain() -> None:
    assert coq_env({})["OCAMLRUNPARAM"] == "d=1"
    assert coq_env({"OCAMLRUNPARAM": "b"})["OCAMLRUNPARAM"] == "b,d=1"
    assert coq_env({"OCAMLRUNPARAM": "d=4,b"})["OCAMLRUNPARAM"] == "d=4,b"


def test_installed_coq_is_supported_and_answers_alike() -> None:
    # The version coqidetop's About gives is the one --version gives (the CLI asks the
    # latter before starting), and it starts under the backend's address-space cap
    # (OCaml 5 builds refuse to without OCAMLRUNPARAM=d=1).
    top = CoqIdeTop(find_idetop("coqidetop.opt"), memory_limit=1024 * 1024 * 1024)
    try:
        assert top.coq_version.supported
        assert binary_version("coqc").release == top.coq_version.release
        assert binary_version(find_idetop("coqidetop.opt")).text == top.version
    finally:
        top.close()


def test_stdlib_is_found_under_its_logical_name(tmp_path: Path) -> None:
    """``Coq.Lists.List`` (8.x) or ``Stdlib.Lists.List`` (9.x), from the folder found."""
    root = stdlib_root()
    assert (root / "Lists" / "List.v").is_file(), root
    module = stdlib_module("Lists/List.v", binary_version("coqc").stdlib_prefix)
    source = tmp_path / "Uses.v"
    source.write_text(f"Require {module}.\nCheck {module}.app_nil_r.\n")
    done = subprocess.run(
        ["coqc", source.name], cwd=tmp_path, capture_output=True, text=True, env=coq_env()
    )
    assert done.returncode == 0, done.stderr
    assert "Loading Stdlib without prefix" not in done.stderr
