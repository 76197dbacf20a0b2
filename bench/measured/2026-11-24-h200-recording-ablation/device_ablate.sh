#!/usr/bin/env bash
# Device: where recorded Near-Far's time goes on NE, by switching parts of recording off in
# copies of the engine (timing only). The line numbers are of frontier.cu at 3e8e60c.
#   run 1: device_ablate.sh base nobar fill nocount nolog nostamp nocopy all
#   run 2: device_ablate.sh base all allnorow allnoband
export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc
here=$(dirname "$0")
nvidia-smi -L
bar='1030s/scope_sync<CL>();//'
fill='s/const unsigned min_fill = recording ? 1 : s.fcap \/ 2;/const unsigned min_fill = s.fcap \/ 2;/'
count='s/if (recording) add_counters(ctl, edges, improved);//'
log='s/REC ? relax_log : nullptr/nullptr/'
stamp='s/REC ? reached_at : nullptr, near_at, REC ? settled_at : nullptr/nullptr, near_at, nullptr/'
row='998s/if (tid == 0) {/if (tid < 0) {/'
copy='s/^    rec.relax_log = relax_log\[: int(state\[C_LOGGED\])\].get()/    return/'  # _gpu.py
band='s/track_band = spec.light_heavy or rec is not None/track_band = spec.light_heavy/'  # _gpu.py
variant() {  # name, then sed expressions on the kernel (and on _gpu.py after --py)
  local name=$1; shift; rm -rf /tmp/v/$name; mkdir -p /tmp/v/$name; cp -r engine /tmp/v/$name/
  local file=/tmp/v/$name/engine/kernels/frontier.cu
  for e in "$@"; do if [ "$e" = --py ]; then file=/tmp/v/$name/engine/_gpu.py; else sed -i "$e" $file; fi; done
}
variant base
variant nobar "$bar"
variant fill "$fill"
variant nocount "$count"
variant nolog "$log"
variant nostamp "$stamp"
variant nocopy --py "$copy"
variant all "$bar" "$fill" "$count" "$log" "$stamp" --py "$copy"
variant allnorow "$bar" "$fill" "$count" "$log" "$stamp" "$row" --py "$copy"
variant allnoband "$bar" "$fill" "$count" "$log" "$stamp" --py "$copy" "$band"
for v in "$@"; do diff -r engine /tmp/v/$v/engine | grep -c "^>"; done
for round in 1 2; do
  for v in "$@"; do
    PYTHONPATH=/tmp/v/$v timeout 120 python3 "$here/rec_ablate.py" $v 2>&1 | grep -v Warn
  done
done | tee $OUT/ablate.log
