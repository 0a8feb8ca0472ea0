"""`layergen schema`: the JSON Schema of declarations, printed or written to a file."""

from __future__ import annotations

from pathlib import Path

from .report import Echo


def schema(output: Path | None, *, echo: Echo) -> int:
    from ..schema import schema_text

    if output is None:
        echo(schema_text(), nl=False)
    else:
        from ..writes import write

        write({output.resolve(): schema_text()})
    return 0
