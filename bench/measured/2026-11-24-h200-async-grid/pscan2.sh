#!/usr/bin/env bash
export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1
nvidia-smi -L
G=${GRAPHS:-NY,BAY,COL,FLA,NE}
PYTHONPATH=$PWD python3 .dev16/ref.py $G 2>&1 | tee $OUT/pscan2.log
PYTHONPATH=$PWD timeout 500 python3 .dev16/pscan2.py $G ${CELLS:-64:1:2048,64:1:8192,64:2:2048,4:1:2048,4:1:8192,4:2:2048,4:2:8192,2:2:2048} 2>&1 | grep -v Warn | tee -a $OUT/pscan2.log
