# synth_kernel.py - the synthetic kernel of `kreport synth`.
# FlyDSL-style source whose lines the synthetic code.json points at.
# Illustrative only: it documents what each instruction stands for.

import synth_ops as ops

BLOCK = 256
TILE = 64


@ops.kernel(block=BLOCK)
def synth_kernel(a_ptr, b_ptr, c_ptr, n_iter):
    n = ops.arg(n_iter)
    # one tile of TILE rows per workgroup
    tile = ops.workgroup_id() * TILE
    c_desc = ops.buffer_desc(c_ptr)
    lane = ops.lane_id() * 16 + tile
    if n == 0:
        ops.zero_fill(c_desc, lane)

    # stage the first A and B tiles through LDS
    a0 = ops.buffer_load(a_ptr, lane)
    b0 = ops.global_load(b_ptr, lane)
    a1 = ops.buffer_load(a_ptr, lane + 1024)
    lds = ops.lds_offset(lane)
    ops.wait_vm(1)
    ops.lds_store(lds, a0)
    ops.lds_store(lds + 1024, b0); ops.barrier()

    x = ops.lds_load(lds)
    y = ops.lds_load_transposed(lds + 512)

    i = 0
    ops.wait_all()
    while True:
        a = ops.buffer_load(a_ptr, lane + 2048)
        b = ops.lds_load(lds + 2048)
        acc = ops.mfma(x, y, acc)
        acc2 = ops.mfma_scaled(a, b, acc2)
        ops.wait_lds()
        p = ops.pk_mul(acc, b)
        m = ops.max(p[0] + p[1], acc2)
        # the loads of this iteration must land before the next one
        ops.wait_vm(0)
        lane += 256
        i += 1
        if i >= n: break
    out = ops.convert(m)
    ops.buffer_store(c_desc, lane, out)
    ops.buffer_store(c_desc, lane + 4, p)


def launch(a, b, c, n):
    grid = (a.numel() // (BLOCK * 4), 1, 1)
    synth_kernel[grid](a, b, c, n)
