export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1 PYTHONPATH=$PWD FRONTIER_SHARED_DATA=$PWD/.dev16/data FRONTIER_PREBUILT=$PWD/.dev16/prebuilt
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 500 python bench/adaptive.py --methods near_far_core --only porto_alegre,NY,BAY,COL,FLA,NE --out $OUT/adaptive 2>&1 | grep -v "^\.*$" | grep -v Warn | tee $OUT/adaptive.log
