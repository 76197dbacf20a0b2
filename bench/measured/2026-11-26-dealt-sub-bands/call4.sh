export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1 PYTHONPATH=$PWD FRONTIER_SHARED_DATA=$PWD/.dev16/data FRONTIER_PREBUILT=$PWD/.dev16/prebuilt
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 150 python .dev16/dealab.py FLA,BAY,COL,NE,NY 0.25,0.5 2>&1 | grep -v Warn | tee $OUT/dealab-narrow.log
for d in auto adaptive; do
timeout 120 python bench/run.py --only NY,BAY,COL,FLA,NE --methods near_far_core,near_far_async,near_far --delta $d --out $OUT/run-$d.json 2>&1 | grep -v Warn | tail -17 | tee $OUT/run-$d.log
done
