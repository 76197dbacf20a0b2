// The contraction's witness search on the GPU (engine/contraction/build.py, `_witnessed`;
// launched by engine/backends/gpu_contract.py): a shortcut a -> b of weight w, through a
// node the round removes, has a witness where a path a -> y -> b of at most w runs over the
// arcs the round keeps. The array passes list every (shortcut, arc out of a) pair and look
// each y -> b up among all the arcs by a binary search; here a thread takes a shortcut, walks
// a's arcs of at most w and searches each y's arcs (sorted by head) for b, stopping at the
// first witness. No search is made from a tail of over `fanout` arcs.

// found[i]: whether shortcut i (tails, heads, weights) has a witness over the kept arcs
// (`starts`: each tail's first arc, and one more; `heads`, `weights`: sorted by tail, then
// head).
extern "C" __global__ void witness_search(const long long* __restrict__ s_tails,
                                          const long long* __restrict__ s_heads,
                                          const long long* __restrict__ s_weights, long long n,
                                          const long long* __restrict__ starts,
                                          const long long* __restrict__ heads,
                                          const long long* __restrict__ weights,
                                          long long fanout, bool* __restrict__ found) {
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        const long long a = s_tails[i], b = s_heads[i], w = s_weights[i];
        const long long a0 = starts[a], a1 = starts[a + 1];
        bool hit = false;
        for (long long e = a0; e < a1 && a1 - a0 <= fanout && !hit; ++e) {
            const long long w1 = weights[e];
            if (w1 > w) continue;
            const long long y = heads[e], end = starts[y + 1];
            long long lo = starts[y], hi = end;
            while (lo < hi) {  // the first of y's arcs whose head is not below b
                const long long mid = (lo + hi) / 2;
                if (heads[mid] < b) lo = mid + 1;
                else hi = mid;
            }
            hit = lo < end && heads[lo] == b && w1 + weights[lo] <= w;
        }
        found[i] = hit;
    }
}
