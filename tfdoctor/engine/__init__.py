"""Stage: run the rules. Takes a Snapshot; gives a Report. registry.py finds the rules (the
built-ins of checks/ and third-party entry points); diagnose.py derives the facts once, runs
every rule whose facts exist, turns a crashing rule into a finding, and hands the findings to
tfdoctor.report.
"""
