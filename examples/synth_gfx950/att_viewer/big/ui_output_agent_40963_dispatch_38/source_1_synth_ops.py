# synth_ops.py - helpers used by synth_kernel.py (synthetic, illustrative).
# Each helper lowers to one AMDGPU instruction of the synthetic capture.

from synth_runtime import rocdl


def buffer_load(ptr, offset):
    return rocdl.raw_buffer_load_x4(ptr, offset)


def global_load(ptr, offset):
    return rocdl.global_load_x4(ptr, offset)

def mfma(a, b, acc):
    return rocdl.mfma_f32_32x32x16_bf16(a, b, acc)

def lds_load_transposed(offset):
    return rocdl.ds_read_tr16_b64(offset)

def mfma_scaled(a, b, acc):
    return rocdl.mfma_scale_f32_16x16x128_f8f6f4(a, b, acc)

def pk_mul(x, y):
    return rocdl.pk_mul_f32(x, y)
