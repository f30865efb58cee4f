
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/parsers/amd_smi_csv.c" "CMakeFiles/goblin_parsers.dir/parsers/amd_smi_csv.c.o" "gcc" "CMakeFiles/goblin_parsers.dir/parsers/amd_smi_csv.c.o.d"
  "/work/main/parsers/column_pick.c" "CMakeFiles/goblin_parsers.dir/parsers/column_pick.c.o" "gcc" "CMakeFiles/goblin_parsers.dir/parsers/column_pick.c.o.d"
  "/work/main/parsers/csv_columns.c" "CMakeFiles/goblin_parsers.dir/parsers/csv_columns.c.o" "gcc" "CMakeFiles/goblin_parsers.dir/parsers/csv_columns.c.o.d"
  "/work/main/parsers/csv_tokenizer.c" "CMakeFiles/goblin_parsers.dir/parsers/csv_tokenizer.c.o" "gcc" "CMakeFiles/goblin_parsers.dir/parsers/csv_tokenizer.c.o.d"
  "/work/main/parsers/diag.c" "CMakeFiles/goblin_parsers.dir/parsers/diag.c.o" "gcc" "CMakeFiles/goblin_parsers.dir/parsers/diag.c.o.d"
  "/work/main/parsers/gunzip.c" "CMakeFiles/goblin_parsers.dir/parsers/gunzip.c.o" "gcc" "CMakeFiles/goblin_parsers.dir/parsers/gunzip.c.o.d"
  "/work/main/parsers/json_tokenizer.c" "CMakeFiles/goblin_parsers.dir/parsers/json_tokenizer.c.o" "gcc" "CMakeFiles/goblin_parsers.dir/parsers/json_tokenizer.c.o.d"
  "/work/main/parsers/kernel_table.c" "CMakeFiles/goblin_parsers.dir/parsers/kernel_table.c.o" "gcc" "CMakeFiles/goblin_parsers.dir/parsers/kernel_table.c.o.d"
  "/work/main/parsers/kernel_trace_csv.c" "CMakeFiles/goblin_parsers.dir/parsers/kernel_trace_csv.c.o" "gcc" "CMakeFiles/goblin_parsers.dir/parsers/kernel_trace_csv.c.o.d"
  "/work/main/parsers/parser_registry.c" "CMakeFiles/goblin_parsers.dir/parsers/parser_registry.c.o" "gcc" "CMakeFiles/goblin_parsers.dir/parsers/parser_registry.c.o.d"
  "/work/main/parsers/py_number.c" "CMakeFiles/goblin_parsers.dir/parsers/py_number.c.o" "gcc" "CMakeFiles/goblin_parsers.dir/parsers/py_number.c.o.d"
  "/work/main/parsers/text_utf8.c" "CMakeFiles/goblin_parsers.dir/parsers/text_utf8.c.o" "gcc" "CMakeFiles/goblin_parsers.dir/parsers/text_utf8.c.o.d"
  "/work/main/parsers/torch_trace_json.c" "CMakeFiles/goblin_parsers.dir/parsers/torch_trace_json.c.o" "gcc" "CMakeFiles/goblin_parsers.dir/parsers/torch_trace_json.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
