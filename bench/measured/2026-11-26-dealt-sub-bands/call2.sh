export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 150 python -m pytest -q -x -m gpu tests/test_gpu.py tests/test_search.py -p no:cacheprovider 2>&1 | tail -4 | tee $OUT/tests.log
grep -q " passed" $OUT/tests.log && ! grep -q "failed\|error" $OUT/tests.log || exit 1
timeout 360 python .dev16/dealab.py FLA,BAY,COL,NE,NY 1,2,4,8,16 1,2,4 2>&1 | grep -v Warn | tee -a $OUT/dealab.log
