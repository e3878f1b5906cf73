# protobuf 4.21+ under a TensorFlow whose generated _pb2 code predates it (real text, protobuf
# 4.21.0 python/google/protobuf/descriptor.py).
raise TypeError(
    "Descriptors cannot not be created directly.\n"
    "If this call came from a _pb2.py file, your generated code is out of date and must be "
    "regenerated with protoc >= 3.19.0.\n"
    "If you cannot immediately regenerate your protos, some other possible workarounds are:\n"
    " 1. Downgrade the protobuf package to 3.20.x or lower.\n"
    " 2. Set PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python (but this will use pure-Python "
    "parsing and will be much slower).\n"
    "\n"
    "More information: https://developers.google.com/protocol-buffers/docs/news/2022-05-06#python-updates"
)
