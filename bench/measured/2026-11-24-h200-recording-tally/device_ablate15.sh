#!/usr/bin/env bash
# Device: what each per-iteration part of recording costs the kernel now (ring tallies).
export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc
nvidia-smi -L
cu=engine/kernels/frontier.cu
variant() {  # name, then sed expressions on the kernel
  local name=$1; shift; rm -rf /tmp/v/$name; mkdir -p /tmp/v/$name; cp -r engine /tmp/v/$name/
  for e in "$@"; do sed -i "$e" /tmp/v/$name/$cu; done
  echo "$name: $(diff -r engine /tmp/v/$name/engine | grep -c '^>') lines changed"
}
n=$(grep -n "long long\* row = s.frames + (long long)b \* ROW_FIELDS;" $cu | cut -d: -f1)
ROW="$((n+2))s/if (tid == 0)/if (tid < 0)/"
TALLY='s/if (recording) tally(counts, b, edges, improved);//'
REDUX='s/const unsigned sum = __reduce_add_sync(active, mine\[t\]);/const unsigned sum = mine[t];/'
ATOM='s/if (leader \&\& sum) atomicAdd(\&counts\[b % TALLY\]\[t\], sum);/if (leader \&\& sum == 0xffffffffu) atomicAdd(\&counts[b % TALLY][t], sum);/'
LOG='s/REC ? relax_log : nullptr/nullptr/'
STAMP='s/REC ? reached_at : nullptr, near_at,/nullptr, nullptr,/'
variant base
variant notally "$TALLY"
variant noredux "$REDUX"
variant noatom "$ATOM"
variant norow "$ROW"
variant nolog "$LOG"
variant nostamp "$STAMP"
variant all "$TALLY" "$ROW" "$LOG" "$STAMP"
for v in base notally noredux noatom norow nolog nostamp all; do
  PYTHONPATH=/tmp/v/$v python3 -c "from engine import _gpu; _gpu._module()" 2>&1 | grep -v Warn &
done; wait; echo compiled
for g in porto_alegre_all.npz NE; do
  for v in base notally noredux noatom norow nolog nostamp all; do
    PYTHONPATH=/tmp/v/$v timeout 150 python3 .dev/rec_split.py $g near_far $v 2>&1 | grep -v Warn | grep "rec=True\|Error\|error"
  done
  PYTHONPATH=/tmp/v/base timeout 100 python3 .dev/rec_split.py $g near_far base 2>&1 | grep -v Warn
done | tee $OUT/ablate.log
