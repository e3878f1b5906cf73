"""Stage: children. Takes a script and an interpreter; gives how the child ended and what it
left. process.py starts it in its own process group with a hard timeout, supervisor.py is the
small supervisor that kills the whole tree even if tfdoctor dies, files.py reads the child's
result and stderr files as untrusted, bounded input.
"""
