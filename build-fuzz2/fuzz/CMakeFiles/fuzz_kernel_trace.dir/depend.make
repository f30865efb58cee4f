# Empty dependencies file for fuzz_kernel_trace.
# This may be replaced when dependencies are built.
