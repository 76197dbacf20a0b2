export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 100 python .dev16/recratio.py porto_alegre_all.npz near_far,delta_stepping,bucketing 1024 2>&1 | grep -v Warn | tee -a $OUT/recratio.log
timeout 150 python .dev16/recratio.py NE near_far,delta_stepping,bucketing 1024 2>&1 | grep -v Warn | tee -a $OUT/recratio.log
timeout 150 python .dev16/recratio.py NE near_far,delta_stepping,bucketing 64 2>&1 | grep -v Warn | tee -a $OUT/recratio.log
timeout 100 python .dev16/recratio.py porto_alegre_all.npz near_far,delta_stepping,bucketing 64 2>&1 | grep -v Warn | tee -a $OUT/recratio.log
