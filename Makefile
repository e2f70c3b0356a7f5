# The two commands of the README: `make demo` and `make test`. Both set everything up.
# `make test` and `make lint` type-check src/ and benchmarks/ with mypy (strict; settings in pyproject.toml).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
OUT    ?= out
STAMP  := $(VENV)/.installed

# Everything that may start Ray runs in a loopback-only network namespace, so that Ray's
# start-up probes of cloud-metadata and public addresses never leave the machine.
NETNS := $(shell if unshare -rn true 2>/dev/null; then \
	echo "unshare -rn -- bash -c 'ip link set lo up 2>/dev/null; exec \"\$$@\"' netns"; fi)

.PHONY: demo test test-coq-versions bench setup coq hammer lint clean

demo: setup
	@$(if $(NETNS),,echo "note: cannot create a network namespace here (unshare -rn refused); Ray runs on the host network")
	$(NETNS) $(BIN)/proofsearch search benchmarks/coq/demo.jsonl --workers 2 \
		--timeout 30 --output $(OUT)/demo-results.jsonl --overwrite
	$(BIN)/proofsearch check $(OUT)/demo-results.jsonl benchmarks/coq/demo.jsonl

test: setup hammer
	@$(if $(NETNS),,echo "note: cannot create a network namespace here (unshare -rn refused); Ray runs on the host network")
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy
	$(NETNS) $(BIN)/python -m pytest -q $(PYTEST_ARGS)

# The Coq-facing tests and the demo on Coq 8.20.1 (Debian trixie) and Rocq 9.2.0 (sid),
# each in a debootstrap root cached under $(COQ_ROOTS); needs root and, the first time,
# the network. One line per version; see docs/coq-versions.md.
COQ_ROOTS ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/proofsearch/roots
test-coq-versions:
	PROOFSEARCH_ROOTS="$(COQ_ROOTS)" tools/test-coq-versions.sh

# `make bench BENCH_ARGS=--full` runs the whole 500-lemma sample instead of a slice.
bench: setup hammer
	$(NETNS) $(BIN)/python benchmarks/run_all.py --out $(OUT)/bench $(BENCH_ARGS)

setup: $(STAMP) coq

# torch is pinned first: 2.13.0 is a CPU wheel; an unpinned torch pulls GBs of CUDA builds.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q "torch==2.13.0"
	$(BIN)/python -m pip install -q -e ".[hf,dev]"
	touch $(STAMP)

# Coq from the system's packages where no coqidetop is installed and we may install
# (any of 8.16-8.20, 9.0-9.2 works; Debian 12 ships 8.16, Debian 13 8.20).
# Rocq 9 (Debian 14) ships the stdlib as its own package, which `coq` does not pull in.
COQ_STDLIB_PKG = $$(apt-cache show libcoq-stdlib >/dev/null 2>&1 && echo libcoq-stdlib)
# math-comp's ssreflect (with its .v sources) for `bench extract-coq --library
# mathcomp.ssreflect` and tests/libs, installed for Debian's Coq where apt can; elsewhere
# those tests skip. Never libcoq-stdpp: another benchmark needs it absent.
MATHCOMP_PKG = libcoq-mathcomp-ssreflect
coq:
	@if command -v coqidetop.opt >/dev/null 2>&1 || command -v coqidetop >/dev/null 2>&1; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing Coq (apt-get install -y coq)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq coq $(COQ_STDLIB_PKG); \
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null && command -v apt-get >/dev/null; then \
		echo "installing Coq (sudo apt-get install -y coq)"; \
		sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq coq $(COQ_STDLIB_PKG); \
	else \
		echo "Coq is missing: install Coq 8.16-8.20 or Rocq 9.0-9.2 (Debian/Ubuntu:" \
		     "sudo apt-get install coq; elsewhere: opam install coq.8.20.1), then run make again."; exit 1; \
	fi
	@where="$$(coqc -where 2>/dev/null)"; \
	if [ -z "$$where" ] || [ -d "$$where/theories/Arith" ] || [ -d "$$where/user-contrib/Stdlib" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing Rocq's standard library (apt-get install -y libcoq-stdlib)"; \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libcoq-stdlib; \
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null && command -v apt-get >/dev/null; then \
		echo "installing Rocq's standard library (sudo apt-get install -y libcoq-stdlib)"; \
		sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libcoq-stdlib; \
	else \
		echo "Rocq 9 is installed without its standard library, a package of its own: install it" \
		     "(Debian: sudo apt-get install libcoq-stdlib; opam: opam install rocq-stdlib), then run make again."; exit 1; \
	fi
	@if [ -d "$$(coqc -where 2>/dev/null)/user-contrib/mathcomp/ssreflect" ]; then exit 0; fi; \
	if ! dpkg -s coq >/dev/null 2>&1 || ! apt-cache show $(MATHCOMP_PKG) >/dev/null 2>&1; then \
		echo "math-comp's ssreflect is missing and apt cannot install it for this Coq:" \
		     "the tests that need it are skipped (tests/libs, the math-comp benchmark)"; exit 0; \
	fi; \
	if [ "$$(id -u)" = 0 ]; then \
		echo "installing math-comp's ssreflect (apt-get install -y $(MATHCOMP_PKG))"; \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(MATHCOMP_PKG); \
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then \
		echo "installing math-comp's ssreflect (sudo apt-get install -y $(MATHCOMP_PKG))"; \
		sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(MATHCOMP_PKG); \
	else \
		echo "math-comp's ssreflect is missing (sudo apt-get install $(MATHCOMP_PKG)):" \
		     "the tests that need it are skipped"; \
	fi

# CoqHammer and its provers, for the baselines of `make bench`.
hammer:
	@if [ -d "$$(coqc -where 2>/dev/null)/user-contrib/Hammer" ] && command -v eprover >/dev/null; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libcoq-hammer eprover z3 cvc4; \
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null && command -v apt-get >/dev/null; then \
		sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libcoq-hammer eprover z3 cvc4; \
	else \
		echo "CoqHammer is missing: install it (Debian/Ubuntu: sudo apt-get install libcoq-hammer eprover z3 cvc4)"; exit 1; \
	fi

lint: setup
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy

clean:
	rm -rf $(OUT) .pytest_cache .mypy_cache
