#!/usr/bin/env bash
# Recording's fixed costs: GPU tests, then HEAD's engine (.dev15/old) against this one, alternating.
set -o pipefail
export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1
nvidia-smi -L
if [ -z "$NOTEST" ]; then
echo "== pytest -m gpu"
PYTHONPATH=$PWD timeout 300 python3 -m pytest -q -x -m gpu -p no:cacheprovider tests -k "not osm" 2>&1 | tail -4 | tee $OUT/tests.log
fi
echo "== regress"
for k in $(seq ${ROUNDS:-2}); do
  PYTHONPATH=$PWD/.dev15/old timeout 100 python3 .dev15/regress.py ${GRAPHS:-porto_alegre_all.npz,NE} old
  PYTHONPATH=$PWD timeout 100 python3 .dev15/regress.py ${GRAPHS:-porto_alegre_all.npz,NE} new
done 2>&1 | grep -v Warn | tee $OUT/regress.log
