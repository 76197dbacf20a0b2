export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1
nvidia-smi -L | tee $OUT/device.txt
G=NY,FLA,NE
(cd .dev16/v3 && PYTHONPATH=$PWD timeout 100 python3 -m pytest -q -x -m gpu tests/test_gpu.py -p no:cacheprovider 2>&1 | tail -3) | tee $OUT/tests-v3.log
PYTHONPATH=$PWD python3 .dev16/ref.py $G 2>&1 | tee $OUT/ab3.log
for k in 1 2; do for v in old v3; do
  PYTHONPATH=$PWD/.dev16/$v timeout 70 python3 .dev16/ab.py $v - $G 2,3,4,6 near_far_async
done; done 2>&1 | grep -v Warn | tee -a $OUT/ab3.log
