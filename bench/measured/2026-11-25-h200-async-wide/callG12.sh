export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1 PYTHONPATH=$PWD FRONTIER_SHARED_DATA=$PWD/.dev16/data
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 250 python3 bench/run.py --only NY,BAY,COL,FLA,NE --methods near_far_async,near_far --delta adaptive --out $OUT/run-adaptive.json 2>&1 | grep -v Warn | tail -16 | tee $OUT/run-adaptive.log
timeout 250 python3 bench/run.py --only NY,BAY,COL,FLA,NE --methods near_far_async --delta auto --out $OUT/run-auto.json 2>&1 | grep -v Warn | tail -10 | tee $OUT/run-auto.log
