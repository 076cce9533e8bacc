"""The overhead benchmark: see README.md in this folder."""
