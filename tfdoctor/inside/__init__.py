"""The programs that run inside the diagnosed interpreter, one folder each.

    collector/  the static facts: platform, the Python build, packages, plugins (`check`'s first)
    runtime/    imports TensorFlow stage by stage: devices, placement, memory, Keras
    probes/     the speed probes (also run by the runtime child after its stages)
    model/      the user's own model or a preset (`probe --model`, `probe --workload PRESET`)
    shared/     what these programs and tfdoctor itself both import: the probe workloads and
                their configuration, the statistics, the result-file protocol, the binary reader

That interpreter may be any Python a TensorFlow-on-Mac user still has (3.8 and later), without
tfdoctor installed, so this code uses the standard library only (and TensorFlow, in the runtime,
probe and model programs) and imports nothing of tfdoctor outside this folder (lint-imports holds
both directions: tfdoctor imports only shared/ from here).

How a program starts (tfdoctor.gather.static.private_scripts): tfdoctor copies this folder into a
new temporary directory as tfdoctor/inside/ under an empty tfdoctor/ package, and the diagnosed
interpreter runs `python ROOT/tfdoctor/inside/NAME/__main__.py RESULT.json ...`. The first lines of
each __main__.py put ROOT first on sys.path, in place of the script's own folder (Python puts it
there, and our modules' short names, `core` or `ops`, would shadow the user's); every module
then imports the others the one way, `from tfdoctor.inside.shared import probe_stats`, as
tfdoctor itself does. Nothing of tfdoctor's
own installation is ever on that interpreter's path.
"""
