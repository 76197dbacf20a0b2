#!/usr/bin/env bash
# GPU tests of the working tree, then HEAD's engine (.dev15/old) and variants in .dev15/V/engine alternating.
set -o pipefail
export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1
nvidia-smi -L
GRAPHS=${GRAPHS:-NY,BAY,COL,FLA,NE,porto_alegre_all.npz}
if [ -z "$NOTEST" ]; then
echo "== pytest -m gpu"
PYTHONPATH=$PWD timeout ${TEST_S:-240} python3 -m pytest -q -x -m gpu -p no:cacheprovider tests -k "${TESTK:-not osm}" 2>&1 | tail -4 | tee $OUT/tests.log
fi
echo "== a/b"
for k in $(seq ${ROUNDS:-2}); do
  for v in old $VARIANTS; do
    PYTHONPATH=$PWD/.dev15/$v timeout 150 python3 .dev15/async_ab.py $GRAPHS $v $METHODS
  done
done 2>&1 | grep -v Warn | tee $OUT/ab.log
