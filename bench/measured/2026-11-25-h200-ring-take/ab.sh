export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1
nvidia-smi -L | tee $OUT/device.txt
mkdir -p /tmp/stage && cp -r .dev16 /tmp/stage/
G=NY,BAY,COL,FLA,NE
PYTHONPATH=$PWD timeout 150 python3 -m pytest -q -x -m gpu tests/test_gpu.py -p no:cacheprovider 2>&1 | tail -4 | tee $OUT/tests-v1.log
PYTHONPATH=$PWD python3 .dev16/ref.py $G 2>&1 | tee $OUT/ab.log
for k in 1 2; do for v in old v1 v2; do
  P=$PWD/.dev16/$v; [ $v = v1 ] && P=$PWD
  PYTHONPATH=$P timeout 90 python3 .dev16/ab.py $v - $G 1,2,3 near_far_async
done; done 2>&1 | grep -v Warn | tee -a $OUT/ab.log
