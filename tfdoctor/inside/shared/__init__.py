"""What the child programs and tfdoctor itself both import: standard library only, Python 3.8+,
no TensorFlow at import time (the workloads get it passed in)."""
