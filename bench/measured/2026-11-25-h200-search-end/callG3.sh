export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 200 python -m pytest -q -x -m gpu tests/test_recording.py tests/test_search.py tests/test_gpu.py tests/test_adaptive.py -p no:cacheprovider 2>&1 | tail -3 | tee $OUT/tests.log
timeout 100 python .dev16/endab.py porto_alegre_all.npz near_far,delta_stepping both 16 2>&1 | grep -v Warn | tee -a $OUT/endab.log
timeout 100 python .dev16/endab.py porto_alegre_all.npz near_far,delta_stepping,bucketing 1 1024 2>&1 | grep -v Warn | tee -a $OUT/endab.log
timeout 100 python .dev16/endab.py porto_alegre_all.npz delta_stepping 1 64 2>&1 | grep -v Warn | tee -a $OUT/endab.log
timeout 150 python .dev16/endab.py NE delta_stepping both 64 2>&1 | grep -v Warn | tee -a $OUT/endab.log
timeout 150 python .dev16/endab.py NE delta_stepping 1 1024 2>&1 | grep -v Warn | tee -a $OUT/endab.log
timeout 120 python .dev16/endab.py NE near_far_async 0 1024 2>&1 | grep -v Warn | tee -a $OUT/endab.log
