# Empty dependencies file for fuzz_amd_smi.
# This may be replaced when dependencies are built.
