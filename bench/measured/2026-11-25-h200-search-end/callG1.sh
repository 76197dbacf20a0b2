export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 200 python -m pytest -q -x -m gpu tests/test_recording.py tests/test_search.py tests/test_gpu.py tests/test_adaptive.py -p no:cacheprovider 2>&1 | tail -3 | tee $OUT/tests.log
for b in 1024 64 16 8; do
timeout 100 python .dev16/pair.py porto_alegre_all.npz near_far,delta_stepping,bucketing both $b 2>&1 | grep -v Warn | tee -a $OUT/pair-porto.log
done
timeout 120 python .dev16/pair.py NE delta_stepping both 64 2>&1 | grep -v Warn | tee -a $OUT/pair-NE.log
timeout 120 python .dev16/pair.py NE near_far_async 0 1024 2>&1 | grep -v Warn | tee -a $OUT/pair-NE.log
timeout 60 python .dev16/widen_bench.py 2>&1 | tee $OUT/widen.log
export PYTHONPATH=$PWD
for b in 1024 64; do
timeout 100 python .dev16/recratio.py porto_alegre_all.npz near_far,delta_stepping,bucketing $b 2>&1 | grep -v Warn | tee -a $OUT/recratio.log
done
