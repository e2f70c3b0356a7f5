#!/usr/bin/env bash
# GPU check of the hf tactic generator (see benchmarks/gpu_check.py for what it checks).
#
#   benchmarks/gpu_check.sh                 # on the GPU machine; results also in $OUT
#   benchmarks/gpu_check.sh --device cpu    # small sizes, to test the script anywhere
#
# The project is not installed there: it runs from the working tree with PYTHONPATH=src.
# Needs torch and transformers only (no ray, no vllm, nothing downloaded). Bounded to
# under 5 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH="src${PYTHONPATH:+:$PYTHONPATH}"
export TOKENIZERS_PARALLELISM=false HF_HUB_OFFLINE=1 TRANSFORMERS_VERBOSITY=error
# $PYTHON if set; else python3 when it has torch; else the checkout's .venv.
if [ -z "${PYTHON:-}" ]; then
    PYTHON=python3
    if ! python3 -c "import torch" 2>/dev/null && [ -x .venv/bin/python ]; then
        PYTHON=.venv/bin/python
    fi
fi
if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
fi
"$PYTHON" -c 'import torch, transformers, sys; print("python", sys.version.split()[0], "torch", torch.__version__, "transformers", transformers.__version__, "cuda", torch.cuda.is_available())'
args=("$@")
if [ -n "${OUT:-}" ]; then
    args+=(--out "$OUT")
fi
exec timeout 290 "$PYTHON" benchmarks/gpu_check.py "${args[@]}"
