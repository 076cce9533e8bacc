"""Compiled op modules, built from ../../../pyx/ops: each op's forward next to its backward."""
