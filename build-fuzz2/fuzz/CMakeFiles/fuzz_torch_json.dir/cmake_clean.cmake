file(REMOVE_RECURSE
  "CMakeFiles/fuzz_torch_json.dir/fuzz_torch_json.c.o"
  "CMakeFiles/fuzz_torch_json.dir/fuzz_torch_json.c.o.d"
  "fuzz_torch_json"
  "fuzz_torch_json.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/fuzz_torch_json.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
