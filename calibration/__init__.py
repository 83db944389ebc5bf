"""Camera intrinsics, table registration from anchor markers, pixel <-> table at a height, grid model.

Table frame: millimetres, x along the width, y along the depth, z up.
"""
