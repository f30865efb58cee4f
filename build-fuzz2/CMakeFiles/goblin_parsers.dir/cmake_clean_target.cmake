file(REMOVE_RECURSE
  "libgoblin_parsers.a"
)
