# Empty dependencies file for goblin_parsers.
# This may be replaced when dependencies are built.
