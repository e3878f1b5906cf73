"""tfdoctor's built-in rules, one module per family of related rules (installed as the
`tfdoctor.checks` package; from a checkout, tfdoctor.engine.registry loads this folder directly).

A module declares its rules with `tfdoctor.model.rule`; a rule's code prefix is its report area.
Rule modules import no other rule module: shared facts come from tfdoctor.derived, shared advice
from tfdoctor.advice.installs, code constants from tfdoctor.codes, and a judgement two modules of one
family share from a module of its own (tfdoctor.advice.import_outcome, tfdoctor.advice.pair_verdict).

To add a rule: its code in tfdoctor.codes; `@rule(codes.X, title, severity, why, fix, ...)` above
its function in the module of its family (a new module goes in BUILTIN_MODULES, and in
MODULE_NEEDS when all its rules read a section gathered on demand); `needs=` only for what the
rule reads beyond its module's MODULE_NEEDS; `fix_answer=` for what `tfdoctor fix` does about its
findings (tfdoctor.advice.fix_answers: GOAL_INSTALLED when an environment with fix's goal
installed answers them, else the reason none of fix's steps can; see tfdoctor/fix/__init__.py);
and a test of each of its codes in tests/rules/test_<module>.py. tests/rules/test_contract.py and
tests/fix/test_answers.py name the rule that misses one of these.
"""

BUILTIN_MODULES = (
    "target",
    "arch_interpreter",
    "arch_binaries",
    "install",
    "compat_pairing",
    "compat_platform",
    "compat_pins",
    "compat_requirements",
    "compat_third_party",
    "compat_era",
    "compat_companions",
    "compat_knowledge",
    "log_install",
    "log_reading",
    "log_tensorflow_name",
    "log_import",
    "log_cpu",
    "log_libraries",
    "log_dependencies",
    "log_protobuf",
    "log_training",
    "log_keras",
    "log_companions",
    "log_metal",
    "log_network",
    "log_era",
    "runtime_import",
    "runtime_crash",
    "runtime_devices",
    "probe_health",
    "probe_speed",
    "model_health",
    "model_speed",
    "model_settings",
    "kernel_specs",
    "editor_settings",
)
"""The built-in rule modules, in report order within each area."""

MODULE_NEEDS = {
    "arch_binaries": ("python",), "compat_pairing": ("python",),
    "compat_platform": ("python",), "compat_requirements": ("python",),
    "compat_third_party": ("python",),
    "log_install": ("log",), "log_reading": ("log",), "log_tensorflow_name": ("log",), "log_import": ("log",), "log_cpu": ("log",),
    "log_libraries": ("log",), "log_dependencies": ("log",), "log_protobuf": ("log",),
    "log_training": ("log",), "log_keras": ("log",), "log_companions": ("log",), "log_metal": ("log",), "log_network": ("log",), "log_era": ("log",),
    "runtime_import": ("runtime",), "runtime_crash": ("runtime",), "runtime_devices": ("runtime",),
    "probe_health": ("probes",), "probe_speed": ("probes",),
    "model_health": ("model|log",), "model_speed": ("model|log",), "model_settings": ("model",),
    "kernel_specs": ("jupyter",), "editor_settings": ("editor",),
}
"""The snapshot sections every rule of a module needs ("model|log": either one), declared here
once for all of them (tfdoctor.engine.registry.rules_of adds them to each rule's own `needs=`,
which names only what that rule needs beyond them). A module is not even imported for a
snapshot without them (a static check loads no log, runtime, probe or model rules), which keeps
start-up fast."""
