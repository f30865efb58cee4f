file(REMOVE_RECURSE
  "libgoblin_core.a"
)
