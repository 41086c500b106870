"""The `astest` command's verbs beyond doit: standalone runs, watch mode, init."""
