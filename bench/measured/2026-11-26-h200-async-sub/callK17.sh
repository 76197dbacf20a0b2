export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 300 python .dev16/subthreads.py NE,FLA,NY,BAY,COL 6,8,16 2>&1 | grep -v Warn | tee $OUT/subthreads.log
