# expect: 0 warning V-21 reports arch_vgpr_count 48 and accum_vgpr_count 0, the ISA uses 96 VGPRs; corrected total 96
# layout: example
# path: att_viewer/small
# The generated results.json reports half of the ISA mark on gfx950 (docs/occupancy.md#register-counts).
import _lib
