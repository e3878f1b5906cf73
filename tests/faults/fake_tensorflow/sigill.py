# Killed by SIGILL during `import tensorflow`: what an AVX build of TensorFlow does under
# Rosetta 2 ("Illegal instruction: 4", "zsh: illegal hardware instruction python").
import os
import signal

os.kill(os.getpid(), signal.SIGILL)
