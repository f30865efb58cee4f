# Empty compiler generated dependencies file for fuzz_torch_json.
# This may be replaced when dependencies are built.
