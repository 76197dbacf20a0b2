export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fcM1 FRONTIER_OFFLINE=1 PYTHONPATH=$PWD FRONTIER_SHARED_DATA=$PWD/.dev16/data FRONTIER_PREBUILT=$PWD/.dev16/prebuilt
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 200 python -m pytest -q -x -m gpu tests/test_gpu.py tests/test_search.py tests/test_fuzz.py -p no:cacheprovider 2>&1 | tail -4 | tee $OUT/tests.log
FRONTIER_FUZZ_SEED=13 timeout 100 python -m pytest -q -m gpu tests/test_fuzz.py -p no:cacheprovider 2>&1 | tail -2 | tee $OUT/fuzz-seed13.log
timeout 280 python .dev16/markab.py NE,NY,FLA,BAY,COL 1,2,8,16 2>&1 | grep -v Warn | tee $OUT/markab.log
