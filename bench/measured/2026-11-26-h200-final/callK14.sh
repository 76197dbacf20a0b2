export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1 PYTHONPATH=$PWD FRONTIER_SHARED_DATA=$PWD/.dev16/data
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 200 python -m pytest -q -m gpu tests/test_fuzz.py tests/test_contraction.py -p no:cacheprovider 2>&1 | grep -E "wrong|c = |passed|failed" | head -20 | tee $OUT/fuzz.log
FRONTIER_FUZZ_SEED=5 timeout 150 python -m pytest -q -m gpu tests/test_fuzz.py -p no:cacheprovider 2>&1 | grep -E "wrong|c = |passed|failed" | head -10 | tee -a $OUT/fuzz.log
timeout 150 python bench/run.py --only NY,NE --methods near_far_core --delta auto --out $OUT/run-auto.json 2>&1 | grep -v Warn | tail -3 | tee $OUT/run-auto.log
