export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
PYTHONPATH=$PWD timeout 150 python .dev16/colprobe.py 2>&1 | grep -v Warn | tee $OUT/colprobe.log
