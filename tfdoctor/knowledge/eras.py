"""TensorFlow's two eras on the Mac GPU, and how to tell them apart.

Apple's first answer (November 2020 to March 2021) was a fork: `tensorflow_macos` 0.1alpha1-3,
TensorFlow r2.4rc0 rebuilt on Apple's ML Compute framework, installed by a script from the
apple/tensorflow_macos GitHub releases (the wheel calls itself tensorflow-macos 0.1a1-0.1a3). It
chooses its device through its own module (`from tensorflow.python.compiler.mlcompute import
mlcompute; mlcompute.set_mlc_device(device_name='gpu')`) and has no tensorflow-metal: the plugin
did not exist yet. Apple archived the repository when the plugin era began (June 2021:
tensorflow-macos 2.5.0 on the registry with the tensorflow-metal PluggableDevice, then plain
tensorflow from 2.13), so the fork gets no fixes. Installing tensorflow-metal into it cannot work,
and code written for it calls an API no later TensorFlow has.
"""

from __future__ import annotations

from packaging.version import InvalidVersion, Version

FORK_PACKAGE = "tensorflow-macos"
FORK_BASE = "2.4.0rc0"
"""The TensorFlow the fork was built from (its README: 'TensorFlow r2.4rc0')."""
FORK_RELEASES = "0.1alpha"
"""The fork's releases as Apple named them together (tensorflow_macos 0.1alpha0-0.1alpha3): what a
report that only says where it installed from is known to have."""
FORK_PYTHON = "3.8"
"""The one Python the fork was built for (apple/tensorflow_macos install_venv.sh bundles cp38 wheels)."""
PLUGIN_ERA_FROM = "2.5.0"
"""The first tensorflow-macos on the registry, and the first TensorFlow tensorflow-metal loads into."""
SOURCES = (("https://github.com/apple/tensorflow_macos (README: TensorFlow r2.4rc0 on ML Compute, "
            "macOS 11.0+, mlcompute.set_mlc_device; archived)"),
           "https://developer.apple.com/metal/tensorflow-plugin/ (the plugin era)")
MLCOMPUTE_LINES = ("from tensorflow.python.compiler.mlcompute import mlcompute",
                   "mlcompute.set_mlc_device(device_name='gpu')")
"""The fork's device selection, which code of the plugin era drops (the plugin needs none)."""
WITHOUT_MLCOMPUTE = (("tf.config.list_physical_devices('GPU')  # instead of mlcompute.set_mlc_device(...): "
                      "tensorflow-metal needs no device selection"),)
"""The line of the user's code that replaces the fork's device selection."""


FORK_FAILURES = ("must be set before initialization", "Failed in processing",
                 "No MLCTrainingGraph has been found", "Error", "only available on macOS 11.0 and later",
                 "neither a custom op nor a flex op", "Op type not registered", "OpKernel")
"""What in the fork's own text is a failure: its imports and ML Compute's informational lines are
how the fork works, and a working fork setup prints them (and lists no GPU, by design)."""


def is_fork_failure(text: str) -> bool:
    """Whether a line of the fork's text reports a failure, not the fork at work."""
    return any(words in text for words in FORK_FAILURES)


def is_mlcompute_fork(package: str, version: str) -> bool:
    """tensorflow-macos below 2.5.0 is Apple's ML Compute fork (0.1a1-0.1a3): the registry's
    tensorflow-macos starts at 2.5.0."""
    if package != FORK_PACKAGE:
        return False
    try:
        return Version(version) < Version(PLUGIN_ERA_FROM)
    except InvalidVersion:
        return False


def installed_fork(tf: object) -> bool:
    """Whether an installed TensorFlow distribution (PackageFacts) is the fork."""
    return tf is not None and is_mlcompute_fork(getattr(tf, "key", ""), getattr(tf, "version", "") or "")


def names_itself_the_fork(tf: object) -> bool:
    """Whether an installed `tensorflow` gives the fork's own version (2.4.0rc0, its
    `tf.__version__`): the fork where no upstream build of that version can run (Apple silicon)."""
    if tf is None or getattr(tf, "key", "") != "tensorflow":
        return False
    try:
        return Version(getattr(tf, "version", "") or "") == Version(FORK_BASE)
    except InvalidVersion:
        return False


def plugin_era(tf: object) -> bool:
    """Whether an installed TensorFlow is of the plugin era (2.5.0 on). The fork is not, and names
    itself tensorflow 2.4.0-rc0 in `tf.__version__` and in reports; no TensorFlow before 2.5 has
    the plugin or the fork's mlcompute module, so its text there is the fork's own."""
    if tf is None or installed_fork(tf):
        return False
    try:
        return Version(getattr(tf, "version", "") or "") >= Version(PLUGIN_ERA_FROM)
    except InvalidVersion:
        return False
