#!/usr/bin/env bash
export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1
nvidia-smi -L
PYTHONPATH=$PWD timeout 550 python3 .dev16/sweep.py ${GRAPHS:-NY,BAY,COL,FLA,NE} ${SCALES:-1,2,4,8,a} 2>&1 | grep -v Warn | tee $OUT/sweep.log
