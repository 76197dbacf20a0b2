export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1 FRONTIER_SHARED_DATA=$PWD/.dev16/data FRONTIER_PREBUILT=$PWD/.dev16/prebuilt
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
pip install --no-index --no-deps --target /tmp/site .whl/*.whl -q 2>&1 | grep -v WARN | tail -2
PYTHONPATH=/tmp/site:$PWD timeout 200 python -m pytest -q -m gpu tests -p no:cacheprovider --ignore=tests/test_viz_browser.py 2>&1 | tail -4 | tee $OUT/tests.log
for e in new head head new; do
  if [ $e = head ]; then P=$PWD/.dev16/head; else P=$PWD; fi
  BATCH=64 PYTHONPATH=$P timeout 60 python .dev16/regress.py NE,porto_alegre_all.npz $e 2>&1 | tee -a $OUT/regress-batch64.log
done
