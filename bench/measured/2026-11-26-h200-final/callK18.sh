export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 200 python -m pytest -q -m gpu tests/test_gpu.py tests/test_search.py tests/test_contraction.py tests/test_fuzz.py -p no:cacheprovider 2>&1 | tail -2 | tee $OUT/tests.log
