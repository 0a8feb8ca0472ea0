"""What each `layergen` subcommand does, one module per command (as ruff's `commands/`).

Nothing here knows typer: `cli.py` declares the options and hands in its `echo`; each
command returns its exit status (0 ok, 1 work found or a conflict) and raises
`DiagnosticError` for a mistake in the input, which `report.report` prints (status 2).
Every module imports what it needs lazily: the CLI's first run pays for one command only.
"""
