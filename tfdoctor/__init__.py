"""tfdoctor: diagnose TensorFlow on Apple silicon, and prove the GPU really helps."""

__version__ = "0.1.0"
