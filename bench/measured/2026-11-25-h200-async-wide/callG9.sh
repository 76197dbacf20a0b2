export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 500 python .dev16/asyncab2.py NE,FLA,NY,BAY,COL 2,3,4,6,8,16 2>&1 | grep -v Warn | tee -a $OUT/asyncab2.log
