# The process exits in the middle of the import, without an exception or a signal (a library
# calling exit()): the result file holds only the stages before the import.
import os
import sys

sys.stderr.write("fatal: cannot continue\n")
sys.stderr.flush()
os._exit(3)
