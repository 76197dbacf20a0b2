#!/usr/bin/env bash
export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1
nvidia-smi -L
G=${GRAPHS:-NY,BAY,COL,FLA,NE}
PYTHONPATH=$PWD python3 .dev16/ref.py $G 2>&1 | tee $OUT/pscan.log
PYTHONPATH=$PWD timeout 500 python3 .dev16/pscan.py $G ${SCALES:-1,1.5,2,3} ${PS:-2048,4096,8192,16384,32768} 2>&1 | grep -v Warn | tee -a $OUT/pscan.log
