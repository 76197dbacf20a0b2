export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 300 python .dev16/wide16.py NE,FLA,NY,BAY 8,16 2>&1 | grep -v Warn | tee $OUT/wide16.log
