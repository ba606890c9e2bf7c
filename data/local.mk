EXTRA_DIST += data/fabrics
