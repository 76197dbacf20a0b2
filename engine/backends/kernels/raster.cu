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

// The roads of a view (viz.raster.draw_roads on the GPU, pixel for pixel): one thread a road
// from node a[i] to node b[i]. Unless every road lies in the view (`clip` 0), the road is
// first cut to the view (Liang-Barsky: dropped when parallel to an edge and outside it, or
// when it misses the view). Its ends are then taken to pixel units, a pixel's centre at a
// whole number ((v - lo) * s - 0.5), and it is stepped through from the pixel of one end to
// the other's, one pixel a column or a row, whichever it crosses more of
// (engine.media.render.line_pixels): step k of n at the end's pixel plus rint(k / n * d).
// Pixels off the image are moved onto its edge, as NumPy's clip does. Every product and sum
// is rounded apart, as NumPy rounds them.
__device__ __forceinline__ double to_pixel(double v, double lo, double s)
{
    return __dadd_rn(__dmul_rn(__dsub_rn(v, lo), s), -0.5);
}

extern "C" __global__ void roads(
    const double* __restrict__ x, const double* __restrict__ y, const int* __restrict__ a,
    const int* __restrict__ b, long long n, double x0, double x1, double y0, double y1,
    double sx, double sy, int clip, int width, int height, unsigned char* __restrict__ image)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        double ax = x[a[i]], ay = y[a[i]], bx = x[b[i]], by = y[b[i]];
        if (clip) {
            const double dx = __dsub_rn(bx, ax), dy = __dsub_rn(by, ay);
            const double p[4] = {-dx, dx, -dy, dy};
            const double q[4] = {__dsub_rn(ax, x0), __dsub_rn(x1, ax), __dsub_rn(ay, y0),
                                 __dsub_rn(y1, ay)};
            double t0 = 0.0, t1 = 1.0;
            bool keep = true;
            for (int e = 0; e < 4; ++e) {
                if (p[e] == 0.0) {
                    keep = keep && q[e] >= 0.0;
                    continue;
                }
                const double r = __ddiv_rn(q[e], p[e]);
                if (p[e] < 0.0) t0 = fmax(t0, r);
                else t1 = fmin(t1, r);
            }
            if (!keep || !(t0 <= t1)) continue;
            bx = __dadd_rn(ax, __dmul_rn(t1, dx));
            by = __dadd_rn(ay, __dmul_rn(t1, dy));
            ax = __dadd_rn(ax, __dmul_rn(t0, dx));
            ay = __dadd_rn(ay, __dmul_rn(t0, dy));
        }
        const long long c0 = (long long)rint(to_pixel(ax, x0, sx));
        const long long r0 = (long long)rint(to_pixel(ay, y0, sy));
        const long long dc = (long long)rint(to_pixel(bx, x0, sx)) - c0;
        const long long dr = (long long)rint(to_pixel(by, y0, sy)) - r0;
        const long long steps = max(llabs(dc), llabs(dr));
        for (long long k = 0; k <= steps; ++k) {
            long long col = c0, row = r0;
            if (k > 0) {
                const double f = __ddiv_rn((double)k, (double)steps);
                col += (long long)rint(__dmul_rn(f, (double)dc));
                row += (long long)rint(__dmul_rn(f, (double)dr));
            }
            col = col < 0 ? 0 : col >= width ? width - 1 : col;
            row = row < 0 ? 0 : row >= height ? height - 1 : row;
            image[row * width + col] = 1;
        }
    }
}
