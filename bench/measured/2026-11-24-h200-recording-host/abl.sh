#!/usr/bin/env bash
export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1
nvidia-smi -L
for k in 1 2; do
for G in porto_alegre_all.npz NE; do
for V in main abl1 abl2 abl3; do
  P=$PWD/.dev15/$V; [ $V = main ] && P=$PWD
  PYTHONPATH=$P timeout 100 python3 .dev15/steps2.py $G delta_stepping $V
done
done
done 2>&1 | grep -v Warn | sed -E 's/ prepare.*//' | tee $OUT/abl.log
