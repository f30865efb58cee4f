# Empty compiler generated dependencies file for goblin_core.
# This may be replaced when dependencies are built.
