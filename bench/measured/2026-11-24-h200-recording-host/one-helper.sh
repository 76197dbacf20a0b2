#!/usr/bin/env bash
set -o pipefail
export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1
nvidia-smi -L
echo "== pytest -m gpu"
PYTHONPATH=$PWD timeout 300 python3 -m pytest -q -m gpu -p no:cacheprovider tests -k "not osm" 2>&1 | tail -3
for k in 1 2; do
for G in porto_alegre_all.npz NE; do
  PYTHONPATH=$PWD/.dev15/head2 timeout 100 python3 .dev15/steps2.py $G delta_stepping,bucketing head
  PYTHONPATH=$PWD timeout 100 python3 .dev15/steps2.py $G delta_stepping,bucketing one
done
done 2>&1 | grep -v Warn | grep "rec=True" | sed -E 's/ pinned.*//'
