
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/fuzz/fuzz_kernel_trace.c" "fuzz/CMakeFiles/fuzz_kernel_trace.dir/fuzz_kernel_trace.c.o" "gcc" "fuzz/CMakeFiles/fuzz_kernel_trace.dir/fuzz_kernel_trace.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build-fuzz2/CMakeFiles/goblin_core.dir/DependInfo.cmake"
  "/work/main/build-fuzz2/CMakeFiles/goblin_parsers.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
