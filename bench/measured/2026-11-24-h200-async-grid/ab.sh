#!/usr/bin/env bash
export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1
nvidia-smi -L
G=${GRAPHS:-NY,FLA,NE}; S=${SCALES:-1,2,4,8}
PYTHONPATH=$PWD python3 .dev16/ref.py $G 2>&1 | tee $OUT/ab.log
for k in 1 2; do
  PYTHONPATH=$PWD/.dev16/old python3 .dev16/ab.py old - $G $S near_far_async${SYNC}
  PYTHONPATH=$PWD/.dev16/v1 python3 .dev16/ab.py new - $G $S near_far_async
done 2>&1 | grep -v Warn | tee -a $OUT/ab.log
