export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD FRONTIER_SHARED_DATA=$PWD/.dev16/data FRONTIER_PREBUILT=$PWD/.dev16/prebuilt
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout ${T1:-270} python bench/adaptive.py --methods near_far_async --only ${ONLY:-porto_alegre,NY,BAY,COL,FLA,NE} --out $OUT 2>&1 | tee $OUT/adaptive.log
timeout ${T2:-60} python -m pytest -q -x -m gpu tests/test_adaptive.py -p no:cacheprovider 2>&1 | tee $OUT/tests.log
