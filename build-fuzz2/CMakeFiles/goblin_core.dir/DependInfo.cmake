
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/core/artefact_reader.c" "CMakeFiles/goblin_core.dir/core/artefact_reader.c.o" "gcc" "CMakeFiles/goblin_core.dir/core/artefact_reader.c.o.d"
  "/work/main/core/counters.c" "CMakeFiles/goblin_core.dir/core/counters.c.o" "gcc" "CMakeFiles/goblin_core.dir/core/counters.c.o.d"
  "/work/main/core/json_writer.c" "CMakeFiles/goblin_core.dir/core/json_writer.c.o" "gcc" "CMakeFiles/goblin_core.dir/core/json_writer.c.o.d"
  "/work/main/core/metrics_json.c" "CMakeFiles/goblin_core.dir/core/metrics_json.c.o" "gcc" "CMakeFiles/goblin_core.dir/core/metrics_json.c.o.d"
  "/work/main/core/run_files.c" "CMakeFiles/goblin_core.dir/core/run_files.c.o" "gcc" "CMakeFiles/goblin_core.dir/core/run_files.c.o.d"
  "/work/main/core/run_parse.c" "CMakeFiles/goblin_core.dir/core/run_parse.c.o" "gcc" "CMakeFiles/goblin_core.dir/core/run_parse.c.o.d"
  "/work/main/core/waste_budget.c" "CMakeFiles/goblin_core.dir/core/waste_budget.c.o" "gcc" "CMakeFiles/goblin_core.dir/core/waste_budget.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build-fuzz2/CMakeFiles/goblin_parsers.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
