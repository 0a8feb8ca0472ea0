"""`layergen adopt`: bring hand-written layers under a declaration."""
