import os
import sys

# Run against the in-place build of this checkout, whatever the current directory.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
