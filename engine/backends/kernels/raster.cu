// The nodes of a map frame drawn on the GPU (engine/backends/raster.py, for viz.raster): each
// pixel keeps the highest rank among its nodes (grid-stride loops: any grid draws every
// node). A node maps to its pixel as in Datashader's
// `Canvas.points`: dropped outside [xmin, xmax] × [ymin, ymax], else column
// int(x * sx + tx) and row int(y * sy + ty), the last column or row taking the points on its
// far edge. The products and sums are rounded apart (__dmul_rn, __dadd_rn: no fused
// multiply-add), so that every node lands on the pixel viz.raster's NumPy code gives it.

// The view's mapping, passed to each kernel as its last arguments but the image.
#define VIEW_PARAMS double sx, double tx, double sy, double ty, double xmin, double xmax, \
    double ymin, double ymax, int width, int height
#define VIEW sx, tx, sy, ty, xmin, xmax, ymin, ymax, width, height

__device__ __forceinline__ void plot(double px, double py, unsigned int r, VIEW_PARAMS,
                                     unsigned int* __restrict__ image)
{
    if (r == 0 || !(xmin <= px && px <= xmax && ymin <= py && py <= ymax)) return;
    int col = (int)__dadd_rn(__dmul_rn(px, sx), tx);
    int row = (int)__dadd_rn(__dmul_rn(py, sy), ty);
    col = col >= width ? width - 1 : col;
    row = row >= height ? height - 1 : row;
    atomicMax(&image[(long long)row * width + col], r);
}

// Each node's rank given.
extern "C" __global__ void rank_max(
    const double* __restrict__ x, const double* __restrict__ y,
    const unsigned char* __restrict__ rank, long long n, VIEW_PARAMS,
    unsigned int* __restrict__ image)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        plot(x[i], y[i], rank[i], VIEW, image);
}

// Each node's rank from its state at `frame`, as engine.recording.Recording.states counts it
// (reached, entered the band, settled: each stamp at or before the frame, -1 read as unsigned
// never is), ranked by `table` (byte k: the rank of state code k).
extern "C" __global__ void state_max(
    const double* __restrict__ x, const double* __restrict__ y,
    const unsigned int* __restrict__ reached, const unsigned int* __restrict__ neared,
    const unsigned int* __restrict__ settled, unsigned int frame, unsigned int table,
    long long n, VIEW_PARAMS, unsigned int* __restrict__ image)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        unsigned int code = (reached[i] <= frame) + (neared[i] <= frame) + (settled[i] <= frame);
        plot(x[i], y[i], (table >> (8 * code)) & 0xffu, VIEW, image);
    }
}
