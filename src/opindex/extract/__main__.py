"""Entry point of the isolated extraction worker: ``python -m opindex.extract FD``."""

import sys
from multiprocessing.connection import Connection

from opindex.extract.worker import serve

if __name__ == "__main__":
    serve(Connection(int(sys.argv[1])))
