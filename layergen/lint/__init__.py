"""`layergen check`: a linter for hand-written Keras layers, losses, constraints,
regularizers and initializers (the classic bugs the seeds catalogue), with `--fix`."""
