file(REMOVE_RECURSE
  "CMakeFiles/goblin_parsers.dir/parsers/amd_smi_csv.c.o"
  "CMakeFiles/goblin_parsers.dir/parsers/amd_smi_csv.c.o.d"
  "CMakeFiles/goblin_parsers.dir/parsers/column_pick.c.o"
  "CMakeFiles/goblin_parsers.dir/parsers/column_pick.c.o.d"
  "CMakeFiles/goblin_parsers.dir/parsers/csv_columns.c.o"
  "CMakeFiles/goblin_parsers.dir/parsers/csv_columns.c.o.d"
  "CMakeFiles/goblin_parsers.dir/parsers/csv_tokenizer.c.o"
  "CMakeFiles/goblin_parsers.dir/parsers/csv_tokenizer.c.o.d"
  "CMakeFiles/goblin_parsers.dir/parsers/diag.c.o"
  "CMakeFiles/goblin_parsers.dir/parsers/diag.c.o.d"
  "CMakeFiles/goblin_parsers.dir/parsers/gunzip.c.o"
  "CMakeFiles/goblin_parsers.dir/parsers/gunzip.c.o.d"
  "CMakeFiles/goblin_parsers.dir/parsers/json_tokenizer.c.o"
  "CMakeFiles/goblin_parsers.dir/parsers/json_tokenizer.c.o.d"
  "CMakeFiles/goblin_parsers.dir/parsers/kernel_table.c.o"
  "CMakeFiles/goblin_parsers.dir/parsers/kernel_table.c.o.d"
  "CMakeFiles/goblin_parsers.dir/parsers/kernel_trace_csv.c.o"
  "CMakeFiles/goblin_parsers.dir/parsers/kernel_trace_csv.c.o.d"
  "CMakeFiles/goblin_parsers.dir/parsers/parser_registry.c.o"
  "CMakeFiles/goblin_parsers.dir/parsers/parser_registry.c.o.d"
  "CMakeFiles/goblin_parsers.dir/parsers/py_number.c.o"
  "CMakeFiles/goblin_parsers.dir/parsers/py_number.c.o.d"
  "CMakeFiles/goblin_parsers.dir/parsers/text_utf8.c.o"
  "CMakeFiles/goblin_parsers.dir/parsers/text_utf8.c.o.d"
  "CMakeFiles/goblin_parsers.dir/parsers/torch_trace_json.c.o"
  "CMakeFiles/goblin_parsers.dir/parsers/torch_trace_json.c.o.d"
  "libgoblin_parsers.a"
  "libgoblin_parsers.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/goblin_parsers.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
