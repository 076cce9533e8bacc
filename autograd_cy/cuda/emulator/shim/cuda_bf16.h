// cuda_bf16.h on the CPU: __nv_bfloat16 is defined by cuda_cpu.h
