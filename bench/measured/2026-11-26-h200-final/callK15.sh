export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_OFFLINE=1 PYTHONPATH=$PWD
timeout 100 python .dev16/tiny.py 2>&1 | grep -v Warn | tee $OUT/tiny.log
