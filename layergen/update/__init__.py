"""Keep hand edits: merge new generated output into files people have edited."""
