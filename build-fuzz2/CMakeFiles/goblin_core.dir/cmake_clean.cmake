file(REMOVE_RECURSE
  "CMakeFiles/goblin_core.dir/core/artefact_reader.c.o"
  "CMakeFiles/goblin_core.dir/core/artefact_reader.c.o.d"
  "CMakeFiles/goblin_core.dir/core/counters.c.o"
  "CMakeFiles/goblin_core.dir/core/counters.c.o.d"
  "CMakeFiles/goblin_core.dir/core/json_writer.c.o"
  "CMakeFiles/goblin_core.dir/core/json_writer.c.o.d"
  "CMakeFiles/goblin_core.dir/core/metrics_json.c.o"
  "CMakeFiles/goblin_core.dir/core/metrics_json.c.o.d"
  "CMakeFiles/goblin_core.dir/core/run_files.c.o"
  "CMakeFiles/goblin_core.dir/core/run_files.c.o.d"
  "CMakeFiles/goblin_core.dir/core/run_parse.c.o"
  "CMakeFiles/goblin_core.dir/core/run_parse.c.o.d"
  "CMakeFiles/goblin_core.dir/core/waste_budget.c.o"
  "CMakeFiles/goblin_core.dir/core/waste_budget.c.o.d"
  "libgoblin_core.a"
  "libgoblin_core.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/goblin_core.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
