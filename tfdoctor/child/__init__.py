"""Stage: children. Takes a script and an interpreter; gives how the child ended and what it
left. process.py starts it in its own process group with a hard timeout, supervisor.py is the
small supervisor that outlives tfdoctor to kill the whole tree, tree.py how a tree is killed
(group, recorded descendants, token carriers), reaper.py tfdoctor as the subreaper of all it
starts (what a command that killed its supervisor left), files.py reads the child's result and
stderr files as untrusted, bounded input.
"""
