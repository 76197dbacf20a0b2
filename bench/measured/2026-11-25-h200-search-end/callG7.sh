export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 200 python -m pytest -q -x -m gpu tests/test_recording.py tests/test_search.py tests/test_gpu.py -p no:cacheprovider 2>&1 | tail -2 | tee $OUT/tests.log
for b in 64 1024; do
timeout 100 python .dev16/pair.py porto_alegre_all.npz delta_stepping,bucketing 1 $b 2>&1 | grep -v Warn | tee -a $OUT/pair.log
done
