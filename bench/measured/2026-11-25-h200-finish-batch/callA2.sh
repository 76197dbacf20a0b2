export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
for r in 1 2; do
  for e in head agg; do
    echo "== $e" | tee -a $OUT/aggregate.log
    BATCH=64 METHODS=delta_stepping,bucketing PYTHONPATH=$PWD/.dev16/$e timeout 80 python .dev16/gputime.py 2>&1 | grep -v Warn | tee -a $OUT/aggregate.log
  done
done
