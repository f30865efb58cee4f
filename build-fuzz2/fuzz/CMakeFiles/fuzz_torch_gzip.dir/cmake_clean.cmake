file(REMOVE_RECURSE
  "CMakeFiles/fuzz_torch_gzip.dir/fuzz_torch_gzip.c.o"
  "CMakeFiles/fuzz_torch_gzip.dir/fuzz_torch_gzip.c.o.d"
  "fuzz_torch_gzip"
  "fuzz_torch_gzip.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/fuzz_torch_gzip.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
