"""Games on the web: a self-contained replay page (`fieldglass export --format html`) and live spectators
(`fieldglass serve`), both drawing the system's picture (rules/picture.py) as SVG in the browser from the same items
the dashboard (Qt) and the PNG/MP4 exports (OpenCV, fieldglass/render.py) draw."""
