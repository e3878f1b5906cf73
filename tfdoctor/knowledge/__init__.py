"""Stage: bundled knowledge, independent of any machine. Takes compat_matrix.json (records.py
parses its records, matrix.py holds CompatMatrix and a pair's status) and gives the questions
rules ask of it: best_pair.py (what to install, the pair to move to), keras_releases.py (tf-keras
pins), metal_plugins.py (plugins and their conflicts), pair_rows.py (every pair with its
evidence). Also the Metal kernel table (kernels.py), the binary load check (binary_evidence.py),
Apple's GPUs (apple_gpus.py) and which ops a Keras layer runs (layer_ops.py).
"""
