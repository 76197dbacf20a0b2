"""Where searches run: the NumPy twin of the kernels (`cpu`), the CUDA launchers through CuPy
(`gpu`, `gpu_many`, `gpu_phast`, `gpu_rows`, and `gpu_contract`: the contraction's witness
search) and the device memory they keep (`gpu_memory`), the map's rasteriser (`raster`),
the device and kernel compilation (`device`) and the kernels themselves (`kernels/`).

May import: `engine.graphs` and the core (`engine.methods`, `engine.recording`,
`engine.adaptive`, `engine.contraction`, `engine._errors`); never `engine.search` or above.
"""
