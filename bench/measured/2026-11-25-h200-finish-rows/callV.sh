export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
for e in head new new head; do
  if [ $e = head ]; then P=$PWD/.dev16/head; else P=$PWD; fi
  BATCH=64 PYTHONPATH=$P timeout 45 python .dev16/regress.py NE,porto_alegre_all.npz $e 2>&1 | tee -a $OUT/regress-batch64-confirm.log
done
