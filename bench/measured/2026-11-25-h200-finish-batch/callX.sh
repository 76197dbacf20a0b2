export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
for b in 64 1024; do
  for e in new head; do
    if [ $e = head ]; then P=$PWD/.dev16/head; else P=$PWD; fi
    echo "== $e" | tee -a $OUT/gputime.log
    BATCH=$b PYTHONPATH=$P timeout 80 python .dev16/gputime.py 2>&1 | grep -v Warn | tee -a $OUT/gputime.log
  done
done
