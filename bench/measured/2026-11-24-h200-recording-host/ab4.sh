#!/usr/bin/env bash
export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1
nvidia-smi -L
for k in 1 2 3; do
for G in porto_alegre_all.npz NE; do
PYTHONPATH=$PWD/.dev15/hostonly timeout 100 python3 .dev15/steps2.py $G delta_stepping host
PYTHONPATH=$PWD timeout 100 python3 .dev15/steps2.py $G delta_stepping both
done
done 2>&1 | grep -v Warn | grep "rec=True" | sed -E 's/ prepare.*//' | tee $OUT/ab4.log
