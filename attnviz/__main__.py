"""`python -m attnviz ...`: see attnviz.cli."""

import sys

from attnviz.cli import main

if __name__ == "__main__":
    sys.exit(main())
