export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1 PYTHONPATH=$PWD FRONTIER_SHARED_DATA=$PWD/.dev16/data
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 300 python -m pytest -q -m gpu tests --ignore-glob='tests/test_viz_*' -p no:cacheprovider 2>&1 | grep -E "outside|wrong|c = |passed|failed" | head -20 | tee $OUT/tests.log
