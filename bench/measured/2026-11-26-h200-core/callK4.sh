export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 200 python -m pytest -q -m gpu tests/test_contraction.py tests/test_search.py tests/test_gpu.py tests/test_adaptive.py tests/test_cli.py -p no:cacheprovider 2>&1 | tail -3 | tee $OUT/tests.log
FRONTIER_SHARED_DATA=$PWD/.dev16/data timeout 150 python -m pytest -q -m gpu tests/test_shared_data.py -k "pace_random" -p no:cacheprovider 2>&1 | tail -3 | tee $OUT/tests-shared.log
timeout 400 python .dev16/core3.py porto_alegre_all.npz,NY,BAY,COL,FLA,NE 0.5,0.7,1,1.4,2,3 2>&1 | grep -v Warn | tee -a $OUT/core3.log
