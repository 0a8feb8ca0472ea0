"""`layergen adopt`: bring hand-written layers under a declaration (issue 36)."""
