export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 200 python -m pytest -q -x -m gpu tests/test_gpu.py tests/test_search.py tests/test_contraction.py tests/test_fuzz.py -p no:cacheprovider 2>&1 | tail -4 | tee $OUT/tests.log
timeout 330 python .dev16/staleab.py FLA,BAY,COL,NE,NY 1,2,8,16 2>&1 | grep -v Warn | tee -a $OUT/staleab.log
