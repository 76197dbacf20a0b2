export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 400 python .dev16/subab.py NE,FLA,NY,BAY,COL 2,4,8,16 2,4 2>&1 | grep -v Warn | tee -a $OUT/subab.log
