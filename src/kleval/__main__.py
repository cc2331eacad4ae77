"""`python -m kleval ...`: the same command line as the `kleval` script."""
import sys

from kleval.cli import main

if __name__ == "__main__":
    sys.exit(main())
