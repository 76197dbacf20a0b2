#!/usr/bin/env bash
set -o pipefail
export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1
nvidia-smi -L
echo "== pytest -m gpu"
PYTHONPATH=$PWD timeout 300 python3 -m pytest -q -x -m gpu -p no:cacheprovider tests -k "not osm" 2>&1 | tail -3 | tee $OUT/tests.log
for k in 1 2 3; do
for G in porto_alegre_all.npz NE; do
  PYTHONPATH=$PWD/.dev15/head2 timeout 100 python3 .dev15/steps2.py $G delta_stepping,bucketing head
  PYTHONPATH=$PWD timeout 100 python3 .dev15/steps2.py $G delta_stepping,bucketing recip
done
done 2>&1 | grep -v Warn | sed -E 's/ prepare.*//' | tee $OUT/recip.log
