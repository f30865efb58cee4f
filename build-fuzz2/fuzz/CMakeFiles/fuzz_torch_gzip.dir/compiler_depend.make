# Empty compiler generated dependencies file for fuzz_torch_gzip.
# This may be replaced when dependencies are built.
