"""One module per command of `python -m attnviz`, each with `run(request)` returning the exit code."""
