#!/usr/bin/env bash
# Device: where recorded Near-Far's time goes on NE, by switching parts of recording off.
export PYTHONUNBUFFERED=1 FRONTIER_CACHE_DIR=/tmp/fc
nvidia-smi -L
cu=engine/kernels/frontier.cu
variant() {  # name, then sed expressions on the kernel (and on _gpu.py after --py)
  local name=$1; shift; rm -rf /tmp/v/$name; mkdir -p /tmp/v/$name; cp -r engine /tmp/v/$name/
  local file=/tmp/v/$name/$cu
  for e in "$@"; do if [ "$e" = --py ]; then file=/tmp/v/$name/engine/_gpu.py; else sed -i "$e" $file; fi; done
}
variant base
variant nobar '1030s/scope_sync<CL>();//'
variant fill 's/const unsigned min_fill = recording ? 1 : s.fcap \/ 2;/const unsigned min_fill = s.fcap \/ 2;/'
variant nocount 's/if (recording) add_counters(ctl, edges, improved);//'
variant nolog 's/REC ? relax_log : nullptr/nullptr/'
variant nostamp 's/REC ? reached_at : nullptr, near_at, REC ? settled_at : nullptr/nullptr, near_at, nullptr/'
variant nocopy --py 's/^    rec.relax_log = relax_log\[: int(state\[C_LOGGED\])\].get()/    return/'
variant all '1030s/scope_sync<CL>();//' 's/const unsigned min_fill = recording ? 1 : s.fcap \/ 2;/const unsigned min_fill = s.fcap \/ 2;/' 's/if (recording) add_counters(ctl, edges, improved);//' 's/REC ? relax_log : nullptr/nullptr/' 's/REC ? reached_at : nullptr, near_at, REC ? settled_at : nullptr/nullptr, near_at, nullptr/' --py 's/^    rec.relax_log = relax_log\[: int(state\[C_LOGGED\])\].get()/    return/'
variant allnorow '1030s/scope_sync<CL>();//' 's/const unsigned min_fill = recording ? 1 : s.fcap \/ 2;/const unsigned min_fill = s.fcap \/ 2;/' 's/if (recording) add_counters(ctl, edges, improved);//' 's/REC ? relax_log : nullptr/nullptr/' 's/REC ? reached_at : nullptr, near_at, REC ? settled_at : nullptr/nullptr, near_at, nullptr/' '998s/if (tid == 0) {/if (tid < 0) {/' --py 's/^    rec.relax_log = relax_log\[: int(state\[C_LOGGED\])\].get()/    return/'
variant allnoband '1030s/scope_sync<CL>();//' 's/const unsigned min_fill = recording ? 1 : s.fcap \/ 2;/const unsigned min_fill = s.fcap \/ 2;/' 's/if (recording) add_counters(ctl, edges, improved);//' 's/REC ? relax_log : nullptr/nullptr/' 's/REC ? reached_at : nullptr, near_at, REC ? settled_at : nullptr/nullptr, near_at, nullptr/' --py 's/^    rec.relax_log = relax_log\[: int(state\[C_LOGGED\])\].get()/    return/' 's/track_band = spec.light_heavy or rec is not None/track_band = spec.light_heavy/'
for v in all allnorow allnoband; do diff -r engine /tmp/v/$v/engine | grep -c "^>" ; done
for round in 1 2; do
  for v in base all allnorow allnoband; do
    PYTHONPATH=/tmp/v/$v timeout 120 python3 .dev/rec_ablate.py $v 2>&1 | grep -v Warn
  done
done | tee $OUT/ablate.log
