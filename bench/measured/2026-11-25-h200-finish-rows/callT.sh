export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
for e in head new new head head new new head head new new head; do
  if [ $e = head ]; then P=$PWD/.dev16/head; else P=$PWD; fi
  PYTHONPATH=$P timeout 40 python .dev16/regress.py porto_alegre_all.npz $e 2>&1 | tee -a $OUT/regress-confirm.log
done
