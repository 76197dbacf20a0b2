set -o pipefail
export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1 FRONTIER_SHARED_DATA=$PWD/.dev16/data FRONTIER_PREBUILT=$PWD/.dev16/prebuilt
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl > /dev/null 2>&1
PYTHONPATH=/tmp/site:$PWD timeout 200 python -m pytest -q -m gpu tests --ignore=tests/test_viz_browser.py -p no:cacheprovider 2>&1 | tail -3 | tee $OUT/tests.log
for e in head new new head head new; do
  if [ $e = head ]; then P=$PWD/.dev16/head; else P=$PWD; fi
  BATCH=64 PYTHONPATH=$P timeout 70 python .dev16/regress.py porto_alegre_all.npz,NE $e 2>&1 | tee -a $OUT/regress-batch64.log
done
for r in "" --record; do
  echo "== $r" | tee -a $OUT/cli-bench-NE.log
  PYTHONPATH=$PWD timeout 90 python -m engine.cli bench .dev16/data/pace16/NE.gr.xz --weights random:1 --backend gpu --batch 64 --methods near_far,delta_stepping,bucketing $r 2>&1 | grep -v Warn | tee -a $OUT/cli-bench-NE.log
done
