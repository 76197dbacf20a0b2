"""Make /tmp/v/NAME/engine copies whose tally() reduces each warp's counts differently."""

import pathlib
import shutil

SRC = pathlib.Path("engine")
body_start = "    const unsigned mine[T_FIELDS] = {edges, g.all, g.kept, g.logged};\n"
old = (
    body_start
    + """    const unsigned active = __activemask();
    const bool leader = (threadIdx.x & 31) == (unsigned)(__ffs(active) - 1);
#pragma unroll
    for (int t = 0; t < T_FIELDS; ++t) {
        const unsigned sum = __reduce_add_sync(active, mine[t]);
        if (leader && sum) atomicAdd(&counts[b % TALLY][t], sum);
    }
"""
)
VARIANTS = {
    "base": old,
    "fullmask": body_start
    + """#pragma unroll
    for (int t = 0; t < T_FIELDS; ++t) {
        const unsigned sum = __reduce_add_sync(0xffffffffu, mine[t]);
        if ((threadIdx.x & 31) == 0 && sum) atomicAdd(&counts[b % TALLY][t], sum);
    }
""",
    "threadatom": body_start
    + """#pragma unroll
    for (int t = 0; t < T_FIELDS; ++t)
        if (mine[t]) atomicAdd(&counts[b % TALLY][t], mine[t]);
""",
    "shfl": body_start
    + """#pragma unroll
    for (int t = 0; t < T_FIELDS; ++t) {
        unsigned sum = mine[t];
        for (int o = 16; o; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
        if ((threadIdx.x & 31) == 0 && sum) atomicAdd(&counts[b % TALLY][t], sum);
    }
""",
    "anyfirst": body_start
    + """    if (__any_sync(0xffffffffu, mine[0] | mine[1] | mine[2] | mine[3])) {
#pragma unroll
        for (int t = 0; t < T_FIELDS; ++t) {
            const unsigned sum = __reduce_add_sync(0xffffffffu, mine[t]);
            if ((threadIdx.x & 31) == 0 && sum) atomicAdd(&counts[b % TALLY][t], sum);
        }
    }
""",
}
for name, body in VARIANTS.items():
    dst = pathlib.Path("/tmp/v") / name
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(SRC, dst / "engine")
    cu = dst / "engine/kernels/frontier.cu"
    text = cu.read_text()
    assert old in text
    cu.write_text(text.replace(old, body))
    print(name, "ok")
