"""`tfdoctor fix`: from a diagnosis to a working environment, without breaking the one diagnosed.

Takes a Snapshot, the Report diagnosed from it (its findings) and the bundled compatibility
matrix; gives a Plan (tfdoctor.fix.plan, a pure function of those three, so plans are tested
offline from snapshots): one target from the matrix and ordered steps (the finding each answers,
its argv, what it changes, how to undo it, whether tfdoctor runs it or the user must). Its parts:
target (what goes together), instructions (what only the user can do), steps (venv/pip/uv argv),
conda (conda or mamba environments), carry (the user's own packages), document (the --json form).
tfdoctor.fix.apply runs a plan's runnable steps: a new environment by default (removed again on
failure or Ctrl-C, guarded by a lock file), in place only after saving a restore file.
"""
