export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 150 python -m pytest -q -x -m gpu tests/test_gpu.py tests/test_search.py -p no:cacheprovider 2>&1 | tail -3 | tee $OUT/tests.log
timeout 400 python .dev16/core1.py NY,NE,BAY 0.125,0.25,0.5,1 2>&1 | grep -v Warn | tee -a $OUT/core1.log
