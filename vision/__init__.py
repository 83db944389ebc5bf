"""Frame sources, marker detection (ArUco, QR), piece poses from a roster, tracking over time.

Pixels follow OpenCV's convention: (x, y) with the centre of the top-left pixel at (0, 0).
"""
