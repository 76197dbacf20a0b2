export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 200 python -m pytest -q -m gpu tests/test_contraction.py tests/test_search.py tests/test_gpu.py tests/test_experiments.py -p no:cacheprovider 2>&1 | tail -2 | tee $OUT/tests.log
for d in auto adaptive; do
FRONTIER_SHARED_DATA=$PWD/.dev16/data timeout 250 python bench/run.py --only NY,BAY,COL,FLA,NE --methods near_far_core,near_far_async --delta $d --out $OUT/run-$d.json 2>&1 | grep -v Warn | tail -12 | tee $OUT/run-$d.log
done
