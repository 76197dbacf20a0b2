export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>&1 | tail -1
PYTHONPATH=/tmp/site:$PWD timeout 330 python -m pytest -q -m gpu tests --ignore=tests/test_viz_browser.py -p no:cacheprovider 2>&1 | tail -3 | tee $OUT/tests-all.log
export PYTHONPATH=$PWD
for b in 1024 64; do
timeout 100 python .dev16/recratio.py porto_alegre_all.npz near_far,delta_stepping,bucketing $b 2>&1 | grep -v Warn | tee -a $OUT/recratio.log
done
timeout 150 python .dev16/recratio.py NE near_far,delta_stepping,bucketing 64 2>&1 | grep -v Warn | tee -a $OUT/recratio.log
