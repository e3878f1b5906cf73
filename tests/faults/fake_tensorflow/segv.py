# Killed by SIGSEGV during import (a compiled extension or plugin built for something else).
import os
import signal

os.kill(os.getpid(), signal.SIGSEGV)
