// What every kernel file shares (frontier.cu, many.cu, phast.cu).
#pragma once

typedef unsigned long long u64;

// "Unreached": the largest distance of type D.
template <typename D>
__device__ __forceinline__ D inf_of() { return (D)~(D)0; }

// Clusters exist from compute capability 9.0; below it only the grid scope is compiled.
#define CLUSTERS (__CUDA_ARCH__ >= 900)
