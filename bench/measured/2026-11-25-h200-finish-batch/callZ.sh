export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
for r in 1 2; do
  for e in new noMove noAdd noCount; do
    if [ $e = new ]; then P=$PWD; else P=$PWD/.dev16/$e; fi
    echo "== $e" | tee -a $OUT/ablate.log
    BATCH=64 METHODS=delta_stepping,bucketing PYTHONPATH=$P timeout 80 python .dev16/gputime.py 2>&1 | grep -v Warn | tee -a $OUT/ablate.log
  done
done
