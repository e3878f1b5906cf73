"""Stage: the snapshot. Plain, versioned, JSON-ready dataclasses of everything gathered:
snapshot.py (the whole, with host, Python and packages), runtime.py (importing TensorFlow),
probes.py (the speed probes), pasted_log.py (an error log), run.py (a supervised command),
user_model.py (the user's model), notebooks.py (Jupyter's kernels and VS Code's interpreter);
typed.py turns JSON into these dataclasses and back, versions.py and archnames.py read other
people's version and architecture strings.
"""
