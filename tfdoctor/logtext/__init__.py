"""Stage: error text -> recognised messages. Takes text (a pasted log, a command's output, the
runtime child's stderr and exception text) and gives what it says: the signatures found, with the
fields read from them.

reader.py reads a log bounded and never raises; signature.py declares what a signature is;
install.py, importing.py and training.py declare the signatures, each with the real message it was
written against and its public source; catalog.py lists them all and recognises them; stderr.py
reads TensorFlow's own stderr into runtime facts; keep.py turns a log into the snapshot's fact.
The diagnosis with the environment's facts is made by the rules.
"""
