# Megabytes of log lines on stderr (8 MiB), then an ordinary import failure: the doctor must
# neither block on the pipe nor keep it all.
import sys

line = ("W tensorflow/core/framework/op_kernel.cc:1830] OP_REQUIRES failed: flooding stderr "
        "to test bounded capture " + "x" * 40 + "\n")
chunk = line * 1000
written = 0
while written < 8 * 1024 * 1024:
    sys.stderr.write(chunk)
    written += len(chunk)
sys.stderr.flush()
raise ImportError("cannot import name 'pywrap_tfe' from partially initialized module "
                  "'tensorflow.python' (most likely due to a circular import)")
