file(REMOVE_RECURSE
  "CMakeFiles/fuzz_amd_smi.dir/fuzz_amd_smi.c.o"
  "CMakeFiles/fuzz_amd_smi.dir/fuzz_amd_smi.c.o.d"
  "fuzz_amd_smi"
  "fuzz_amd_smi.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/fuzz_amd_smi.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
