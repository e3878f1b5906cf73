# Killed by SIGBUS during import.
import os
import signal

os.kill(os.getpid(), signal.SIGBUS)
