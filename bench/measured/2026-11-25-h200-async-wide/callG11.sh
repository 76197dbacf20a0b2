export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 200 python -m pytest -q -m gpu tests/test_gpu.py tests/test_search.py tests/test_adaptive.py -p no:cacheprovider 2>&1 | tail -3 | tee $OUT/tests.log
PYTHONPATH=$PWD timeout 300 python .dev16/asyncab3.py NE,FLA,NY,BAY,COL 4,6,8 1024x1,1024x2 2>&1 | grep -v Warn | tee -a $OUT/shapes.log
timeout 200 python .dev16/asyncab.py NE,NY,COL 1,2 2>&1 | grep -v Warn | tee -a $OUT/narrow.log
