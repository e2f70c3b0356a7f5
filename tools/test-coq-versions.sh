#!/usr/bin/env bash
# make test-coq-versions: the Coq-facing tests and the demo on other Coq releases.
#
# Each release is a Debian root built with debootstrap (trixie: Coq 8.20.1, sid: Rocq
# 9.2.0) holding Coq, CoqHammer, Python and the package's dependencies (not the [hf]
# extra). Roots are cached under $PROOFSEARCH_ROOTS (default
# $XDG_CACHE_HOME/proofsearch/roots): a root is rebuilt when missing or when its Debian
# packages change, its Python environment alone when the dependencies change. Each run
# copies the working tree into the root and runs, in a private mount, PID and
# loopback-only network namespace (Ray stays on the machine, every process dies with
# the namespace):
#   1. pytest on the Coq-facing tests (backend, soundness, checker, CLI search/check,
#      resume, the demo, stdlib tools, the CoqHammer baselines, the tracer,
#      `prove` on projects, the library extractor and ssreflect, and the Ray SIGKILL +
#      --resume test);
#   2. the demo as `make demo` runs it (2 Ray workers), then `proofsearch check`.
# It prints one line per release and exits 1 if any test failed or the demo check did.
#
# Needs root (debootstrap, chroot, namespaces) and the network to build a root; a
# cached root runs offline. Environment: COQ_RELEASES="trixie sid", DEBIAN_MIRROR,
# PYTEST_ARGS (extra pytest arguments, split as a shell would: PYTEST_ARGS='-k "a or b"').
# Logs: $PROOFSEARCH_ROOTS/logs.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${PROOFSEARCH_ROOTS:-${XDG_CACHE_HOME:-$HOME/.cache}/proofsearch/roots}
RELEASES=${COQ_RELEASES:-trixie sid}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
LOGS=${CACHE}/logs
TESTS=(
    tests/coq tests/cli tests/bench/test_coq_stdlib.py tests/bench/test_stdlib_index.py
    tests/bench/test_baselines.py tests/trace tests/prove tests/libs
    "tests/distributed/test_cli_ray.py::test_sigkill_then_resume_every_theorem_exactly_once"
)
# Debian packages of each root: Coq (sid splits the stdlib out), CoqHammer and its provers
# (the baselines), Python; on trixie also math-comp's ssreflect for tests/libs and
# Equations for the test of its tactics (sid's
# math-comp 2.6 cannot be installed while its elpi dependency is missing there: those
# tests skip with their reason). --no-install-recommends keeps the roots small.
PACKAGES="coq libcoq-hammer eprover z3 cvc4 python3 python3-venv ca-certificates"
EXTRA_trixie="libcoq-mathcomp-ssreflect libcoq-equations"
EXTRA_sid="libcoq-stdlib"

if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
        exec sudo -E "$0" "$@"
    fi
    echo "test-coq-versions needs root (debootstrap, chroot, namespaces); run it as root" >&2
    exit 1
fi
mkdir -p "$CACHE" "$LOGS"
# PYTEST_ARGS as words, quotes honoured (no expansion: it is not evaluated).
PYTEST_WORDS=()
if [ -n "${PYTEST_ARGS:-}" ]; then
    mapfile -d '' -t PYTEST_WORDS < <(python3 -c \
        'import shlex, sys; sys.stdout.write("".join(w + "\0" for w in shlex.split(sys.argv[1])))' \
        "$PYTEST_ARGS")
fi

# The package's dependencies and its [dev] extra, read from pyproject.toml.
requirements() {
    python3 - "$REPO/pyproject.toml" <<'EOF'
import sys, tomllib
project = tomllib.load(open(sys.argv[1], "rb"))["project"]
for requirement in project["dependencies"] + project["optional-dependencies"]["dev"]:
    print(requirement)
EOF
}

# chroot with a clean environment (the host's pip settings name host-only folders).
in_root() {
    local root=$1; shift
    env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
        LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive chroot "$root" "$@"
}

# Delete a root (or a half-built one), unmounting first whatever is still mounted in it
# (debootstrap mounts /proc and /sys while it works; a killed run may leave them).
remove_root() {
    local path=$1 target
    [ -e "$path" ] || return 0
    findmnt -rn -o TARGET | grep -F "$path/" | sort -r | while read -r target; do
        umount -l "$target" || true
    done
    rm -rf --one-file-system "$path"
}

build_root() {
    local release=$1 root=$CACHE/$1 extra_var="EXTRA_$1"
    local system venv
    system=$(echo "$PACKAGES ${!extra_var:-}" | sha256sum | cut -c1-16)
    venv=$(requirements | sha256sum | cut -c1-16)
    local start=$SECONDS log=$LOGS/build-$release.log
    if [ ! -f "$root/.proofsearch-root" ] || [ "$(cat "$root/.proofsearch-root")" != "$system" ]; then
        echo "building the $release root in $root (log: $log)"
        if ! command -v debootstrap >/dev/null; then
            apt-get install -y -qq debootstrap >"$log" 2>&1
        fi
        remove_root "$root.tmp"
        remove_root "$root"
        # Each step only after the one before succeeded (errexit does not apply inside
        # an || list): a root whose packages failed to install is never marked built.
        {
            debootstrap --variant=minbase "$release" "$root.tmp" "$MIRROR" &&
                # sid's Release file is often past its Valid-Until date on mirrors.
                in_root "$root.tmp" apt-get -o Acquire::Check-Valid-Until=false update -qq &&
                # shellcheck disable=SC2086
                in_root "$root.tmp" apt-get install -y -qq --no-install-recommends \
                    $PACKAGES ${!extra_var:-} &&
                in_root "$root.tmp" apt-get clean
        } >>"$log" 2>&1 || { echo "building the $release root failed; see $log" >&2; return 1; }
        echo "$system" >"$root.tmp/.proofsearch-root"
        mv "$root.tmp" "$root"
    fi
    # The Python environment alone is rebuilt when the dependencies change.
    if [ ! -f "$root/opt/venv/.proofsearch-venv" ] ||
        [ "$(cat "$root/opt/venv/.proofsearch-venv")" != "$venv" ]; then
        echo "installing the Python dependencies in the $release root (log: $log)"
        {
            # pip inside the root trusts what the host trusts (a proxy's CA, for one).
            cp "${PIP_CERT:-${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}}" \
                "$root/etc/ssl/certs/proofsearch-host-ca.crt" &&
                requirements >"$root/opt/requirements.txt" &&
                rm -rf "$root/opt/venv" &&
                in_root "$root" python3 -m venv /opt/venv &&
                in_root "$root" /opt/venv/bin/pip install -q --no-cache-dir \
                    --cert /etc/ssl/certs/proofsearch-host-ca.crt -r /opt/requirements.txt
        } >>"$log" 2>&1 || { echo "installing in the $release root failed; see $log" >&2; return 1; }
        echo "$venv" >"$root/opt/venv/.proofsearch-venv"
    fi
    if [ $((SECONDS - start)) -gt 0 ]; then
        echo "built the $release root in $((SECONDS - start)) s ($(du -sh "$root" | cut -f1))"
    fi
}

# Run "$@" inside the root, in private mount, PID and network namespaces.
run_in_root() {
    local root=$1; shift
    unshare --mount --pid --net --fork --kill-child -- bash -c '
        set -e
        root=$1; shift
        ip link set lo up
        mount --make-rprivate /
        mount -t proc proc "$root/proc"
        mount -t tmpfs -o size=4g tmpfs "$root/dev/shm"
        mount -t tmpfs tmpfs "$root/tmp"
        mount --rbind /sys "$root/sys"
        exec env -i PATH=/opt/venv/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 \
            PYTHONPATH=/src/proofsearch/src "$(command -v chroot)" "$root" "$@"
    ' run_in_root "$root" "$@"
}

# count WORD SUMMARY: the number before WORD in pytest's last line (0 if absent).
count() {
    local found
    found=$(grep -oE "[0-9]+ $1" <<<"$2" | head -n 1 | cut -d' ' -f1)
    echo "${found:-0}"
}

run_release() {
    local release=$1 root=$CACHE/$1 log=$LOGS/run-$1.log start=$SECONDS
    # The working tree as git sees it (tracked and untracked files, not ignored ones).
    rm -rf "$root/src/proofsearch"
    mkdir -p "$root/src/proofsearch"
    (cd "$REPO" && git ls-files -z --cached --others --exclude-standard |
        xargs -0 -I{} sh -c 'test -e "{}" && printf "%s\0" "{}"' |
        tar --null -T - -cf -) | tar -xf - -C "$root/src/proofsearch"
    local version package
    version=$(in_root "$root" coqc --print-version | cut -d' ' -f1)
    package=$(in_root "$root" dpkg-query -W -f '${Version}' coq)
    # shellcheck disable=SC2016
    run_in_root "$root" bash -c '
        cd /src/proofsearch
        python -m pytest -q -rfEs "$@" >/tmp/pytest.log 2>&1
        echo "pytest-exit $?"
        tail -n 1 /tmp/pytest.log | sed "s/^/pytest-summary /"
        python -m proofsearch.cli search benchmarks/coq/demo.jsonl --workers 2 --timeout 30 \
            --output /tmp/demo.jsonl --overwrite >/tmp/demo.log 2>&1
        echo "demo-exit $?"
        python -m proofsearch.cli check /tmp/demo.jsonl benchmarks/coq/demo.jsonl >>/tmp/demo.log 2>&1
        echo "check-exit $?"
        python -c "import json,sys; r=[json.loads(l) for l in open(\"/tmp/demo.jsonl\")];
print(\"demo-proved\", sum(x[\"status\"]==\"proved\" for x in r), len(r))"
        cat /tmp/pytest.log /tmp/demo.log >&2
    ' tests "${TESTS[@]}" "${PYTEST_WORDS[@]}" >"$log.out" 2>"$log" || true
    local summary tests_exit demo_exit check_exit proved
    tests_exit=$(awk '/^pytest-exit/ {print $2}' "$log.out")
    summary=$(sed -n 's/^pytest-summary //p' "$log.out" | sed 's/^=* *//; s/ *=*$//')
    demo_exit=$(awk '/^demo-exit/ {print $2}' "$log.out")
    check_exit=$(awk '/^check-exit/ {print $2}' "$log.out")
    proved=$(awk '/^demo-proved/ {print $2 "/" $3}' "$log.out")
    local passed failed
    passed=$(count passed "$summary")
    failed=$(( $(count failed "$summary") + $(count error "$summary") ))
    local verdict=ok
    if [ "${tests_exit:-1}" != 0 ] || [ "${demo_exit:-1}" != 0 ] || [ "${check_exit:-1}" != 0 ]; then
        verdict=FAILED
    fi
    printf 'Coq %s (Debian %s, coq %s): tests %s passed, %s failed; demo %s proved (2 Ray workers), check %s; %s (%d s; log %s)\n' \
        "$version" "$release" "$package" "${passed:-0}" "$failed" "${proved:-?}" \
        "$([ "${check_exit:-1}" = 0 ] && echo ok || echo FAILED)" "$verdict" \
        $((SECONDS - start)) "$log" | tee -a "$LOGS/summary.txt"
    # The failing tests by name, so that a CI log that shows only this output says which.
    grep -E '^(FAILED|ERROR) ' "$log" | cut -c1-200 | sed 's/^/    /' | tee -a "$LOGS/summary.txt" || true
    [ "$verdict" = ok ]
}

# All in a function, read whole before it runs: editing this file during a run is safe.
main() {
    local status=0 started=$SECONDS release
    for release in $RELEASES; do
        build_root "$release" || { status=1; continue; }
    done
    for release in $RELEASES; do
        [ -f "$CACHE/$release/.proofsearch-root" ] || { echo "Coq ? (Debian $release): no root"; status=1; continue; }
        run_release "$release" || status=1
    done
    echo "test-coq-versions: $((SECONDS - started)) s in all"
    return $status
}

main "$@"; exit $?
