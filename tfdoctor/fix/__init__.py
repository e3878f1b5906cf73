"""`tfdoctor fix`: from a diagnosis to a working environment, without losing the one diagnosed.

Takes the Report of a diagnosis (its snapshot, the facts derived from it, its findings) and the
bundled compatibility matrix; gives a Plan (tfdoctor.fix.plan, a pure function of those two, so
plans are tested offline from snapshots): one goal from the matrix and ordered steps (the
finding each answers, its argv, what it changes, how to undo it, whether tfdoctor runs it or the
user must). fix works out nothing the diagnosis worked out already. Its parts: goal (which
Python, TensorFlow, tensorflow-metal and Keras go together), instructions (what only the user
can do), steps (venv/pip/uv argv and how they are printed), conda (conda or mamba environments),
carry and sources (the user's own packages, each from where it came), document (the --json
form); tfdoctor.render.fix_plan prints a plan as text.
tfdoctor.fix.apply runs a plan's runnable steps as one transaction (runner: one command under
the supervisor; index: what the package index is doing; guard: the lock, the journal, clean-ups
a second signal cannot cut short; restore: the in-place restore record and its undo; errors:
how it can end).

Which findings fix answers is declared by each code, where it is declared: a rule's
`fix_answer=` (tfdoctor.model.rule; the answers are in tfdoctor.advice.fix_answers), copied
into every finding it makes, which the plan reads from the report. To add a rule that fix
answers, declare it with `fix_answer=GOAL_INSTALLED` (or another answered FixAnswer) when an
environment with the goal installed makes its findings go away; a scenario in tests/scenarios
whose plan `answers` it shows that it does. A rule fix does not answer declares why not, with
one of the FixAnswer(False, ...) reasons; tests/fix/test_answers.py fails for a rule that
declares neither.
"""
