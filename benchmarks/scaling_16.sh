#!/usr/bin/env bash
# Worker scaling of the batched engines from 1 to 16 processes (vector.make(..., workers=k); then make_async), for
# a machine with 16 cores or more: nothing depends on it (the docs' table comes from the 2-core development
# machine). On a smaller machine it measures 1 up to its core count. Each count's ratio is to workers=1 (one
# process, measured in the same run, the runs interleaved). Options after the script go to throughput.py (e.g.
# --env dominoes_v0).
#
#   bash benchmarks/scaling_16.sh [--seconds 3] [--env dominoes_v0 ...]
set -euo pipefail
cd "$(dirname "$0")/.."
counts=$(python -c "import os; print(','.join(str(k) for k in range(1, min(16, os.cpu_count() or 1) + 1)))")
echo "os.cpu_count() = $(python -c 'import os; print(os.cpu_count())'); workers $counts" >&2
for batch in 4096 16384; do
    python benchmarks/throughput.py --skip-aec --workers "$counts" --batch-sizes "$batch" --seconds 3 "$@"
done
# vector.make_async against lockstep and the bound (the random player included), 4096 games a process, at 2, 4,
# 8 and 16 processes (those the machine has cores for)
pow2=$(python -c "import os; print(','.join(str(k) for k in (1, 2, 4, 8, 16) if k <= (os.cpu_count() or 1)))")
python benchmarks/throughput.py --skip-aec --workers "$pow2" --async --batch-sizes 4096 --seconds 3 "$@"
