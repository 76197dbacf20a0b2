export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fcK FRONTIER_OFFLINE=1 PYTHONPATH=$PWD FRONTIER_SHARED_DATA=$PWD/.dev16/data FRONTIER_PREBUILT=$PWD/.dev16/prebuilt
rm -rf /tmp/fcK
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
for run in first second; do
  python bench/run.py --only NY,NE --methods near_far_core --delta auto --out $OUT/$run.json 2>&1 | grep -v "^frontier: contracting" | tail -8 | tee $OUT/$run.log
  python -c "import json; [print('$run', r['graph'], 'setup_s', round(r['setup_s'],3), 'time_ms', round(r['time_ms'],3), 'x', round(r['speedup'],1), 'identical', r['identical'], r['device']) for r in json.load(open('$OUT/$run.json'))]" 2>&1 | tee -a $OUT/$run.log
done
ls -la /tmp/fcK | tee $OUT/cache.txt
timeout 200 python -m pytest -q -m gpu tests/test_contraction.py tests/test_cli.py tests/test_search.py -p no:cacheprovider 2>&1 | tail -3 | tee $OUT/tests.log
