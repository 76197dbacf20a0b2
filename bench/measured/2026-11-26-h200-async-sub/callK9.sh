export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 100 python .dev16/heldprobe.py 2>&1 | grep -v Warn | tee $OUT/heldprobe.log
timeout 240 python -m pytest -q -m gpu tests/test_gpu.py tests/test_search.py tests/test_contraction.py tests/test_adaptive.py -p no:cacheprovider 2>&1 | tail -4 | tee $OUT/tests.log
timeout 240 python .dev16/asyncsub.py NE,FLA,NY,BAY,COL 2,3,4 2,4,8,16 2>&1 | grep -v Warn | tee -a $OUT/asyncsub.log
