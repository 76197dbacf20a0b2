"""Three int32 rows of PACE NE's size (stamps) into page-locked host memory (H200): 4-byte
stores, 16-byte stores, or device memory then one copy; and one row by 4-byte stores."""

import cupy as cp
import cupyx
import numpy as np
from widen_bench import timed

SRC = r"""
#define STRIDE(i, m) \
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (m); \
         i += (long long)gridDim.x * blockDim.x)
extern "C" __global__ void rows4(const int* a, long long n, int* out) {
    STRIDE(i, n) {
        int v = a[i];
        out[i] = v;
        out[n + i] = v + 1;
        out[2 * n + i] = v + 2;
    }
}
extern "C" __global__ void rows16(const int* a, long long n, int* out) {  // n % 4 == 0
    STRIDE(i, n / 4) {
        int4 v = ((const int4*)a)[i];
        ((int4*)out)[i] = v;
        ((int4*)(out + n))[i] = make_int4(v.x + 1, v.y + 1, v.z + 1, v.w + 1);
        ((int4*)(out + 2 * n))[i] = make_int4(v.x + 2, v.y + 2, v.z + 2, v.w + 2);
    }
}
extern "C" __global__ void copy4(const int* a, long long n, int* out) {
    STRIDE(i, n) out[i] = a[i];
}
"""


def main() -> None:
    mod = cp.RawModule(code=SRC)
    for n in (19_000 // 4 * 4, 1_524_452):
        a = cp.asarray(np.random.default_rng(0).integers(0, 10**6, n, dtype=np.int32))
        host = cupyx.empty_pinned(3 * n, np.int32)
        ptr = np.uint64(host.ctypes.data)
        dev = cp.empty(3 * n, np.int32)
        args = (a, np.int64(n))
        for blocks in (max(1, min(-(-n // 256), 4 * 132)), max(1, min(-(-n // 256), 16 * 132))):
            grid = (blocks,)

            def device_copy(grid=grid, args=args, dev=dev, host=host):
                mod.get_function("rows4")(grid, (256,), (*args, dev))
                dev.get(out=host, blocking=False)

            def direct(kernel, grid=grid, args=args, ptr=ptr):
                return lambda: mod.get_function(kernel)(grid, (256,), (*args, ptr))

            ways = {
                "device+copy": device_copy,
                "direct 4B": direct("rows4"),
                "direct 16B": direct("rows16"),
                "one row 4B": direct("copy4"),
            }
            for name, f in ways.items():
                print(f"n={n:>9} blocks {blocks:5d} {name:12s} median {timed(f):.3f} ms")


main()
