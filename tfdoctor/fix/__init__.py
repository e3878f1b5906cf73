"""`tfdoctor fix`: from a diagnosis to a working environment, without losing the one diagnosed.

Takes a Snapshot, the Report diagnosed from it (its findings) and the bundled compatibility
matrix; gives a Plan (tfdoctor.fix.plan, a pure function of those three, so plans are tested
offline from snapshots): one target from the matrix and ordered steps (the finding each answers,
its argv, what it changes, how to undo it, whether tfdoctor runs it or the user must). Its parts:
target (what goes together), instructions (what only the user can do), steps (venv/pip/uv argv
and how they are printed), conda (conda or mamba environments), carry and sources (the user's
own packages, each from where it came), document (the --json form).
tfdoctor.fix.apply runs a plan's runnable steps as one transaction (runner: one command under
the supervisor; index: what the package index is doing; guard: the lock, the journal, clean-ups
a second signal cannot cut short; restore: the in-place restore record and its undo; errors:
how it can end).
"""
