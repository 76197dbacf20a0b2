// The nodes of a map frame drawn on the GPU (engine/_gpu_raster.py, for viz.raster): each
// pixel keeps the highest rank among its nodes. A node maps to its pixel as in Datashader's
// `Canvas.points`: dropped outside [xmin, xmax] × [ymin, ymax], else column
// int(x * sx + tx) and row int(y * sy + ty), the last column or row taking the points on its
// far edge. The products and sums are rounded apart (__dmul_rn, __dadd_rn: no fused
// multiply-add), so that every node lands on the pixel Datashader's CPU code gives it.

extern "C" __global__ void rank_max(
    const double* __restrict__ x, const double* __restrict__ y,
    const unsigned char* __restrict__ rank, long long n,
    double sx, double tx, double sy, double ty,
    double xmin, double xmax, double ymin, double ymax,
    int width, int height, unsigned int* __restrict__ image)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int r = rank[i];
    double px = x[i], py = y[i];
    if (r == 0 || !(xmin <= px && px <= xmax && ymin <= py && py <= ymax)) return;
    int col = (int)__dadd_rn(__dmul_rn(px, sx), tx);
    int row = (int)__dadd_rn(__dmul_rn(py, sy), ty);
    col = col >= width ? width - 1 : col;
    row = row >= height ? height - 1 : row;
    atomicMax(&image[(long long)row * width + col], r);
}
