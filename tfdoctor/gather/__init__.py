"""Stage: gather facts. Takes the interpreter to diagnose (interpreter.py chooses it) and gives a
Snapshot (tfdoctor.facts): static.py runs the collector inside that interpreter, runtime.py
imports TensorFlow in an isolated child, probes.py runs the speed probes, user_model.py the
user's own model (model_result.py reads what it found, with model_memory.py and
model_settings.py; model_deadline.py bounds it), supervised_run.py the command of `tfdoctor run`
(run_output.py records what it prints); snapshot_files.py writes and reads snapshots as files.
The programs these children run are tfdoctor/inside/, copied privately for each run by
static.private_scripts; every child is started through tfdoctor.child.
"""
