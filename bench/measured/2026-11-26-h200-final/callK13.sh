export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 200 python -m pytest -q -m gpu tests/test_fuzz.py::test_gpu_campaign -p no:cacheprovider 2>&1 | grep -E "wrong|reproduce|draw_case|Error|passed|failed|c = |sssp" | head -40 | tee $OUT/fuzz.log
