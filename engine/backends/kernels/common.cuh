// What every kernel file shares (frontier.cu, many.cu).
#pragma once

typedef unsigned long long u64;

// "Unreached": the largest distance of type D.
template <typename D>
__device__ __forceinline__ D inf_of() { return (D)~(D)0; }
