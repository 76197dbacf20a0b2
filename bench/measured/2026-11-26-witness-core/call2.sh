export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1 PYTHONPATH=$PWD FRONTIER_SHARED_DATA=$PWD/.dev16/data FRONTIER_PREBUILT=$PWD/.dev16/prebuilt
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
git log -1 --format=%h > $OUT/tree.txt; git diff --stat >> $OUT/tree.txt
timeout 200 python -m pytest -q -m gpu tests --ignore-glob='tests/test_viz_*' -p no:cacheprovider 2>&1 | grep -E "outside|wrong|c = |passed|failed|Error" | head -20 | tee $OUT/tests.log
FRONTIER_FUZZ_SEED=7 timeout 100 python -m pytest -q -m gpu tests/test_fuzz.py -p no:cacheprovider 2>&1 | grep -E "outside|wrong|c = |passed|failed" | head -10 | tee $OUT/fuzz-seed7.log
for d in auto adaptive; do
timeout 120 python bench/run.py --only NY,BAY,COL,FLA,NE --methods near_far_core,near_far_async --delta $d --out $OUT/run-$d.json 2>&1 | grep -v Warn | tail -11 | tee $OUT/run-$d.log
done
