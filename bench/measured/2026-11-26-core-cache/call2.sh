export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fcK2 FRONTIER_OFFLINE=1 PYTHONPATH=$PWD FRONTIER_SHARED_DATA=$PWD/.dev16/data FRONTIER_PREBUILT=$PWD/.dev16/prebuilt
rm -rf /tmp/fcK2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
for run in first second; do
  python bench/run.py --only NY,BAY,COL,FLA,NE --methods near_far_core --delta auto --out $OUT/$run.json 2>&1 | grep -v "^frontier: contracting" > $OUT/$run-table.log
  python -c "import json; [print('$run', r['graph'], 'setup_s', round(r['setup_s'],2), 'time_ms', round(r['time_ms'],3), 'x', round(r['speedup'],1), 'arcs', round(r['edges_relaxed']/r['dijkstra_edges'],3), 'identical', r['identical'], r['device']) for r in json.load(open('$OUT/$run.json'))]" 2>&1 | tee $OUT/$run.log
done
ls -la /tmp/fcK2 | tee $OUT/cache.txt
timeout 240 python -m pytest -q -m gpu tests --ignore-glob='tests/test_viz_*' -p no:cacheprovider 2>&1 | tail -3 | tee $OUT/tests.log
FRONTIER_FUZZ_SEED=13 timeout 120 python -m pytest -q -m gpu tests/test_fuzz.py -p no:cacheprovider 2>&1 | tail -2 | tee $OUT/fuzz-seed13.log
