export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1 PYTHONPATH=$PWD FRONTIER_SHARED_DATA=$PWD/.dev16/data
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
python .dev16/wit_dev.py NY,BAY,COL,FLA,NE,porto_alegre_all.npz 2>&1 | tee $OUT/wit.log
