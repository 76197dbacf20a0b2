export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1 PYTHONPATH=$PWD FRONTIER_SHARED_DATA=$PWD/.dev16/data FRONTIER_PREBUILT=$PWD/.dev16/prebuilt
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 300 python -m pytest -q -m gpu tests --ignore-glob='tests/test_viz_*' -p no:cacheprovider 2>&1 | grep -E "outside|wrong|c = |passed|failed" | head -20 | tee $OUT/tests.log
grep -q " passed" $OUT/tests.log && ! grep -q "failed" $OUT/tests.log || exit 1
timeout 260 python .dev16/dealab.py FLA,BAY,COL,NE,NY 0.25,0.5,1,2,4,8,16 2>&1 | grep -v Warn | tee $OUT/dealab.log
timeout 150 python bench/adaptive.py --methods near_far_async --only porto_alegre,NY,BAY,COL,FLA,NE --out $OUT/adaptive 2>&1 | grep -v "^\.*$" | grep -v Warn | tee $OUT/adaptive.log
