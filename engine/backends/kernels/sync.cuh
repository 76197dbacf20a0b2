// Loads, the cluster's distributed shared memory and barriers (mbarriers, the cluster and
// grid scopes), warp-aggregated adds.
#pragma once

__device__ __forceinline__ u64 vload(const u64* p) { return *(volatile const u64*)p; }

// *p read by one thread of the block and shared with the others. Calls are separated by a
// barrier of the scope, so no thread still reads the previous value.
__device__ __forceinline__ long long block_load(const u64* p) {
    __shared__ long long value;
    if (threadIdx.x == 0) value = (long long)vload(p);
    __syncthreads();
    return value;
}

// Size of block r's shared-memory part of frontier p, as published (without SPILLED).
__device__ __forceinline__ long long part_size(const ClusterShared* sh, int p, unsigned r) {
    return sh->pub[p][r] & ~SPILLED;
}

// A threshold as the int64 frame table stores it: one at or beyond 2^63 - 1 (Bellman-Ford's
// infinity in 64 bits, a Delta of 2^63 or more) is stored as 2^63 - 1, "unreachable", as the
// NumPy twin does (recording.frame_threshold).
template <typename D>
__device__ __forceinline__ long long frame_threshold(D x) {
    constexpr unsigned long long top = 0x7fffffffffffffffull;
    return (unsigned long long)x > top ? (long long)top : (long long)x;
}

#if CLUSTERS
__device__ __forceinline__ unsigned shared_address(const void* p) {
    return (unsigned)__cvta_generic_to_shared(p);
}

// The address of `*p` in block `rank`'s shared memory (the same offset).
__device__ __forceinline__ unsigned remote_address(const void* p, unsigned rank) {
    unsigned to;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(to) : "r"(shared_address(p)),
                 "r"(rank));
    return to;
}

// An mbarrier that completes a phase on one arrival and the bytes it was told to expect.
__device__ __forceinline__ void init_bar(u64* bar) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(bar)) : "memory");
}

// Store `value` at `*p` in block `rank`'s shared memory, counted by that block's mbarrier
// `bar` once the bytes have landed: the sender needs no fence.
__device__ __forceinline__ void send(unsigned* p, unsigned value, u64* bar, unsigned rank) {
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%0], %1, [%2];"
                 :: "r"(remote_address(p, rank)), "r"(value), "r"(remote_address(bar, rank))
                 : "memory");
}

// This round's expected bytes on the mbarrier `bar` (one arrival per phase).
__device__ __forceinline__ void expect_bytes(u64* bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                 :: "r"(shared_address(bar)), "r"(bytes) : "memory");
}

// Wait until phase `parity` of the mbarrier `bar` has completed.
__device__ __forceinline__ void wait_phase(u64* bar, unsigned parity) {
    asm volatile(
        "{\n\t.reg .pred done;\n\t"
        "WAIT:\n\t"
        "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, [%0], %1;\n\t"
        "@!done bra WAIT;\n\t}"
        :: "r"(shared_address(bar)), "r"(parity) : "memory");
}

// The barrier that ends an exchange at cluster scope. The other blocks read this block's
// shared-memory appends after it, so its release fence covers this block's shared memory
// only (MEMBAR.CTA) instead of cg's GPU-scope fence (MEMBAR.GPU). The part sizes travel by
// `send`; the global writes of an iteration (spills, far-pile flushes, count resets) are
// fenced where they are made, and each improved distance was performed at L2 by the
// atomicMin whose result decided its append.
__device__ __forceinline__ void cluster_barrier() {
#if __CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 8)
    asm volatile("fence.release.sync_restrict::shared::cta.cluster;" ::: "memory");
#else
    asm volatile("fence.acq_rel.cluster;" ::: "memory");  // no restricted fence before PTX 8.6
#endif
    asm volatile(
        "barrier.cluster.arrive.relaxed.aligned;\n\t"
        "barrier.cluster.wait.aligned;" ::: "memory");
}
#endif

template <bool CL>
__device__ __forceinline__ void scope_sync() {
#if CLUSTERS
    if constexpr (CL) {
        cg::this_cluster().sync();
        return;
    }
#endif
    cg::this_grid().sync();
}

__device__ __forceinline__ void warp_add(u64* slot, u64 value) {
    // One atomic per warp with work instead of one per thread.
    unsigned active = __activemask();
    unsigned lo = (unsigned)value;
    unsigned sum = __reduce_add_sync(active, lo);
    if (((threadIdx.x & 31) == (unsigned)(__ffs(active) - 1)) && sum) atomicAdd(slot, (u64)sum);
}
