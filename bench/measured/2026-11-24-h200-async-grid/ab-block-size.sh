#!/usr/bin/env bash
export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1
nvidia-smi -L
G=${GRAPHS:-NY,FLA,NE}; S=${SCALES:-1,2}
PYTHONPATH=$PWD python3 .dev16/ref.py $G 2>&1 | tee $OUT/ab-block-size.log
for k in 1 2; do
  for v in v1 t256 t384; do
    PYTHONPATH=$PWD/.dev16/$v python3 .dev16/ab.py $v - $G $S near_far_async
  done
done 2>&1 | grep -v Warn | tee -a $OUT/ab-block-size.log
