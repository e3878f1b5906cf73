"""Stage: triage, a bug report as a person posted it -> facts with provenance -> a snapshot.

Takes the text of a GitHub issue or a forum question (markdown, fences, quoted replies, cut
pastes) and gives what it says about the environment: `facts.read_report` returns every fact
with its line, how it was known (stated in prose, read from pasted output, inferred from a path)
and its source, the contradictions between them and whether a whole package list was pasted;
`snapshot.to_snapshot` turns that into a Snapshot the rules diagnose, listing in
`Snapshot.unknown` whatever the report does not settle. The command's own modules build on
these two: outcome.py (the snapshot diagnosed by the engine, the pasted text read as `--log`
reads it), questions.py (what to ask: the commands that tell apart the diagnoses the open facts
allow), inputs.py (a file, standard input, a folder, JSON Lines) and document.py (the JSON).

layout.py bounds the text and tells prose from fenced output, quoted replies and code;
evidence.py is the fact itself and the recorder the readers share; vocabulary.py and
platforms.py read versions, macOS names, chips, architectures, platform strings and wheel file
names. One reader per kind of text: read_tfdoctor.py (tfdoctor's own snapshot JSON and markdown
report), read_template.py (TensorFlow's issue templates), read_dumps.py (PyTorch's collect_env,
TensorFlow's tf_env_collect.sh), read_conda.py (conda list, conda info, conda env export),
read_pip.py (pip list, pip freeze, pip show, pip's own output), read_system.py (sw_vers, uname
-a, sysctl, platform strings, file and lipo, Docker), read_session.py (a command with the output
it printed, or its answer quoted in a sentence), read_tflog.py (TensorFlow's, tensorflow-metal's
and dyld's log lines), read_crash.py (macOS crash reports and zsh's crash line),
read_printed.py (what the reporter's script printed: "TensorFlow version: 2.12.0"),
read_paths.py (what paths in tracebacks and pip output say), read_prose.py (what a person
wrote). conclusions.py draws what follows from the facts (Rosetta from an arm64 Mac and an
x86_64 Python; an x86_64 Python from a TensorFlow it printed that no arm64 build is as old as,
or one pip installed that has x86_64 macOS wheels only); contradictions.py finds facts that
disagree (two machines in one report among them). Nothing here runs, opens or fetches anything
the report names.
"""
