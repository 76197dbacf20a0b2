export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1 PYTHONPATH=$PWD FRONTIER_SHARED_DATA=$PWD/.dev16/data
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 300 python -m pytest -q -m gpu tests --ignore-glob='tests/test_viz_*' -p no:cacheprovider 2>&1 | tail -4 | tee $OUT/tests.log
for d in auto adaptive; do
timeout 120 python bench/run.py --only NY,BAY,COL,FLA,NE --methods near_far_core,near_far_async --delta $d --out $OUT/run-$d.json 2>&1 | grep -v Warn | tail -11 | tee $OUT/run-$d.log
done
