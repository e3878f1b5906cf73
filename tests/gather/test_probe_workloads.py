"""Each probe workload is defined once, as a class in tfdoctor/inside/shared/workloads.py: the
probes' configuration, `tfdoctor probe --workload`, the size checks and the evidence all read it.
(What a workload measures is tested by running it: tests/gather/test_probes_tf.py.)"""

from __future__ import annotations

from conftest import run_tfdoctor

from tfdoctor.advice.probe_evidence import size
from tfdoctor.gather.probes import config_problem
from tfdoctor.inside.shared import probe_config
from tfdoctor.inside.shared.model_presets import MODEL_PRESETS
from tfdoctor.inside.shared.workloads import KINDS


def test_the_configuration_is_read_from_the_workloads():
    assert probe_config.WORKLOADS == tuple(KINDS) == ("matmul", "conv", "train")
    for name, kind in KINDS.items():
        assert kind.name == name
        assert probe_config.DEFAULT_SIZE[name] == kind.default_size
        assert probe_config.SWEEP_SIZES[name] == list(kind.sweep_sizes)
        assert probe_config.RETRY_FACTOR[name] == kind.retry_factor
        assert probe_config.MAX_SIZE[name] == kind.max_size
        assert probe_config.TOLERANCE[name] == kind.tolerance
        # The retry at a larger size must still be a size the probes measure.
        assert kind.default_size in kind.sweep_sizes
        assert kind.default_size * kind.retry_factor <= kind.max_size


def test_the_size_check_names_what_each_workloads_size_is():
    for name, kind in KINDS.items():
        problem = config_problem({"workloads": name, "size": kind.max_size + 1})
        assert f"too large for {name}: its {kind.size_word} can be at most {kind.max_size} " in problem


def test_the_evidence_labels_each_workloads_size():
    for name, kind in KINDS.items():
        assert size(name, 7) == kind.size_label.format(7)
    assert size("fft", 7) == "size 7"  # a snapshot from another tfdoctor may name another


def test_the_command_line_offers_every_workload_and_preset():
    run = run_tfdoctor("probe", "--workload", "fft")
    assert run.code == 2
    assert f"choose from {', '.join([*KINDS, 'all', *MODEL_PRESETS])}" in run.stderr


def test_flops_per_call_are_the_workloads_own():
    """The CLI refuses a --size whose FLOPs cannot fit the budget: it counts them as the workload
    does (2 n^3 for matmul, the convolution's and the training step's per sample)."""
    assert KINDS["matmul"].flops_of(1024) == 2.0 * 1024 ** 3
    assert KINDS["conv"].flops_of(2) == 2 * KINDS["conv"].flops_of(1) == 2.0 * 2 * 64 * 64 * 64 * 9 * 32
    assert KINDS["train"].flops_of(3) == 3 * KINDS["train"].flops_of(1)
