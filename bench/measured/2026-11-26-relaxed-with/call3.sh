export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fcM3 FRONTIER_OFFLINE=1 PYTHONPATH=$PWD FRONTIER_SHARED_DATA=$PWD/.dev16/data FRONTIER_PREBUILT=$PWD/.dev16/prebuilt
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
git log --oneline -1 | tee $OUT/tree.txt
timeout 300 python -m pytest -q -m gpu tests --ignore-glob='tests/test_viz_*' -p no:cacheprovider 2>&1 | tail -3 | tee $OUT/tests.log
FRONTIER_CACHE_MB=150 timeout 200 python bench/run.py --only NY,NE --methods near_far_core --delta auto --out $OUT/core.json 2>&1 | grep -v "^frontier: contracting" | tail -8 | tee $OUT/core.log
ls -la /tmp/fcM3 | tee $OUT/cache.txt
