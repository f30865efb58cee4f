file(REMOVE_RECURSE
  "CMakeFiles/fuzz_kernel_trace.dir/fuzz_kernel_trace.c.o"
  "CMakeFiles/fuzz_kernel_trace.dir/fuzz_kernel_trace.c.o.d"
  "fuzz_kernel_trace"
  "fuzz_kernel_trace.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/fuzz_kernel_trace.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
