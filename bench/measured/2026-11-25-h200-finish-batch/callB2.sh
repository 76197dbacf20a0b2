export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
git log --oneline -1 | tee -a $OUT/device.txt
for r in 1 2 3; do
  BATCH=1024 PYTHONPATH=$PWD timeout 60 python .dev16/regress.py porto_alegre_all.npz,NE new 2>&1 | tee -a $OUT/regress-batch1024-final.log
done
