export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
for r in 1 2; do
  for e in v1 v2; do
    if [ $e = v2 ]; then P=$PWD; else P=$PWD/.dev16/$e; fi
    echo "== $e" | tee -a $OUT/quotient.log
    BATCH=64 METHODS=delta_stepping,bucketing PYTHONPATH=$P timeout 80 python .dev16/gputime.py 2>&1 | grep -v Warn | tee -a $OUT/quotient.log
  done
done
PYTHONPATH=$PWD timeout 100 python -m pytest -q -x -m gpu tests/test_recording.py tests/test_search.py -p no:cacheprovider 2>&1 | tail -2 | tee $OUT/tests.log
