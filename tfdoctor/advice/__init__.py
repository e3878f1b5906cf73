"""Stage: advice shared by the rules. Takes a snapshot and its derived facts; gives evidence and
remediation commands: installs.py (what to install here, as commands), commands.py (commands
for the diagnosed interpreter), pair_verdict.py (the verdict on an installed TensorFlow +
tensorflow-metal pair), import_outcome.py (how `import tensorflow` went: which runtime code),
runtime_evidence.py, probe_evidence.py and log_evidence.py (what those findings quote).
"""
