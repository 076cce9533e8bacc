"""Compiled extension modules, built from ../../pyx (see setup.py)."""
