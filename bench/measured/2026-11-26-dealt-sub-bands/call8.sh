export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1 PYTHONPATH=$PWD FRONTIER_SHARED_DATA=$PWD/.dev16/data FRONTIER_PREBUILT=$PWD/.dev16/prebuilt
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 200 python .dev16/dealab.py FLA,BAY,COL,NE,NY 3,4,6 2>&1 | grep -v Warn | tee $OUT/dealab.log
timeout 150 python bench/run.py --only NY,BAY,COL,FLA,NE --methods near_far_core,near_far_async,near_far --delta auto --out $OUT/run-auto.json 2>&1 | grep -v Warn | tail -17 | tee $OUT/run-auto.log
