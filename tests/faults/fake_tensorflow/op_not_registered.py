# Python files and binary from different TensorFlow builds (real text, TensorFlow's op registry).


class NotFoundError(Exception):
    pass


NotFoundError.__module__ = "tensorflow.python.framework.errors_impl"

raise NotFoundError(
    "Op type not registered 'RaggedBincount' in binary running on host. Make sure the Op and "
    "Kernel are registered in the binary running in this process. Note that if you are loading a "
    "saved graph which used ops from tf.contrib, accessing (e.g.) `tf.contrib.resampler` should "
    "be done before importing the graph, as contrib ops are lazily registered when the module is "
    "first accessed."
)
