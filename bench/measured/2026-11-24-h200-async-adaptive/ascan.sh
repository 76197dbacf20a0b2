#!/usr/bin/env bash
# near_far_async's adaptive Δ: phase costs and a damped step (×0.71–1.41 a phase instead of ×0.5–2).
mkdir -p /tmp/sd/pace16 && cp .data/*.gr.xz /tmp/sd/pace16/
export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc FRONTIER_SHARED_DATA=/tmp/sd FRONTIER_OFFLINE=1
nvidia-smi -L
cu=engine/kernels/frontier.cu
rm -rf /tmp/v && mkdir -p /tmp/v/base /tmp/v/damp && cp -r engine /tmp/v/base/ && cp -r engine /tmp/v/damp/
sed -i 's/if (ratio > 512 \* 512) ratio = 512 \* 512;/if (ratio > 362 * 362) ratio = 362 * 362;/; s/if (step < 128) step = 128;/if (step < 181) step = 181;/' /tmp/v/damp/$cu
diff -r /tmp/v/base/engine /tmp/v/damp/engine | grep -c '^>'
for v in base damp; do PYTHONPATH=/tmp/v/$v python3 -c "from engine import _gpu; _gpu._module()" 2>&1 | grep -v Warn & done; wait
for v in base damp; do
  PYTHONPATH=/tmp/v/$v:$PWD timeout 280 python3 .dev15/ascan.py $v 1 NY,BAY,COL,FLA,NE 2>&1 | grep -v Warn
done | tee $OUT/ascan.log
