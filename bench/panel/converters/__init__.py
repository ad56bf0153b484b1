"""One module per source format. Each has convert(src, out, **params) -> dict (counts for the summary
line), reads its files from src (already checked against the graph's source.json by ../convert.py) and
writes the dataset directory out; common.py holds what they share."""
