export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>&1 | grep -v WARNING | tail -1
PYTHONPATH=/tmp/site:$PWD timeout 400 python -m pytest -q -m gpu tests --ignore=tests/test_viz_browser.py -p no:cacheprovider 2>&1 | tail -3 | tee $OUT/tests-all.log
