export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 560 python .dev16/core2.py NE,NY,COL 3,4,5 0.5,0.7,1,1.4,2 2>&1 | grep -v Warn | tee -a $OUT/core2.log
