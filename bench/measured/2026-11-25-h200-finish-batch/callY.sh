export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1
PYTHONPATH=$PWD timeout 100 python .dev16/prof.py 2>&1 | grep -v Warn | cut -c1-160 | tee $OUT/prof.log
