export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1 PYTHONPATH=$PWD FRONTIER_SHARED_DATA=$PWD/.dev16/data FRONTIER_PREBUILT=$PWD/.dev16/prebuilt
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
git log -1 --format=%h | tee $OUT/tree.txt
timeout 200 python -m pytest -q -m gpu tests --ignore-glob='tests/test_viz_*' -p no:cacheprovider 2>&1 | grep -E "outside|wrong|c = |passed|failed|Error" | head -20 | tee $OUT/tests.log
FRONTIER_FUZZ_SEED=11 timeout 100 python -m pytest -q -m gpu tests/test_fuzz.py -p no:cacheprovider 2>&1 | grep -E "outside|wrong|c = |passed|failed" | head -10 | tee $OUT/fuzz-seed11.log
