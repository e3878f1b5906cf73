"""The runtime child: imports TensorFlow and records each stage (__main__.py runs it)."""
