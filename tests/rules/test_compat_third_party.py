"""compat.third-party-plugin (checks/compat_third_party.py): IPNP-BIPN's tensorflow-metal-plugin
0.4.1 requires tensorflow==2.21.* and macOS 15 (its PKG-INFO, TF_SUPPORTED_VERSION and Makefile,
recorded in compat_matrix.json metal_plugins from the registry's sdist)."""

from __future__ import annotations

from snapshots import RuleModules, _pkg, apple_silicon, merge, snap

from tfdoctor.model import Severity

rules = RuleModules("compat_third_party")
PY = "/Users/ada/venvs/tf/bin/python"


def plugin_on(tf: str, macos: str = "15.1") -> dict:
    packages = [_pkg("tensorflow", tf, ["cp313-cp313-macosx_12_0_arm64"]),
                _pkg("tensorflow-metal-plugin", "0.4.1", ["cp313-cp313-macosx_15_0_arm64"], ["tensorflow==2.21.*"])]
    return merge(apple_silicon(packages=packages), {"python": {"version": "3.13.1"},
                                                    "host": {"macos_version": macos}})


def test_the_minor_it_was_built_for_fits():
    assert rules.run(snap(plugin_on("2.21.0"))) == []


def test_another_tensorflow_minor_gets_no_gpu_from_it():
    (f,) = rules.run(snap(plugin_on("2.20.0")))
    assert f.code == "compat.third-party-plugin" and f.severity is Severity.ERROR
    assert "built for TensorFlow 2.21 only" in f.title
    assert f.remediation.commands[0] == f"{PY} -m pip install -- 'tensorflow==2.21.*'"
    assert "runtime.no-gpu" in f.explains


def test_macos_older_than_15_is_named():
    (f,) = rules.run(snap(plugin_on("2.21.0", macos="14.5")))
    assert "needs macOS 15.0 or later" in f.title


def test_a_third_party_plugin_is_a_metal_plugin_for_the_other_rules():
    """With only tensorflow-metal-plugin installed, no rule says "tensorflow-metal is not installed"."""
    compat = RuleModules("compat_pairing", "compat_platform")
    assert "compat.no-metal" not in [f.code for f in compat.run(snap(plugin_on("2.21.0")))]
