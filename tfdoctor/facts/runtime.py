"""Facts from importing TensorFlow in an isolated child process (see tfdoctor.gather.runtime).

The child (tfdoctor/inside/runtime/) writes a plain JSON document stage by stage; the
parent turns it, the way the child ended and TensorFlow's stderr (tfdoctor.logtext.stderr) into this
model. Plain data only (dataclasses, lists, dicts, str/int/float/bool/None), so a snapshot with
runtime facts round-trips through tfdoctor.facts.typed and can be diagnosed on another machine.
"""

from __future__ import annotations

from dataclasses import dataclass, field

OUTCOMES = ("ok", "import-error", "signal", "timeout", "no-result", "bad-output", "not-started",
            "temp-dir")
"""How the child ended:
ok            the child imported TensorFlow and finished every stage;
import-error  `import tensorflow` raised a Python exception (see `import_error`);
signal        the child was killed by a signal (SIGILL, SIGSEGV, SIGBUS, SIGABRT...): `signal`;
timeout       the child did not finish within the timeout and was killed with its process group;
no-result     the child exited (code `returncode`) without a complete result;
bad-output    the result file was not the JSON document the child writes;
not-started   the interpreter could not be started at all;
temp-dir      tfdoctor's own temporary directory failed (none writable, or removed while the
              child ran): not the interpreter's fault.
`stage` tells how far the child got in every case."""

STDERR_TAIL = 8000
"""Characters of a child's stderr kept in the facts (all of the bounded stderr is parsed)."""

STAGE_DOING = {
    None: "starting",
    "started": "preparing to import TensorFlow",
    "importing": "importing TensorFlow",
    "imported": "setting memory growth on the GPUs",
    "memory-growth": "listing devices",
    "devices": "running an op on each device",
    "placement": "reading device memory",
    "memory-info": "inspecting Keras",
    "keras": "finishing (or starting the speed probes)",
    "probes": "running the speed probes",
    "done": "finishing",
}
"""What the child was doing after it reported a stage (the next stage's work)."""

STAGES = ("started", "importing", "imported", "memory-growth", "devices", "placement",
          "memory-info", "keras", "probes", "done")
"""The child's stages, in order; the result file is rewritten (atomically) after each."""


@dataclass
class ImportFailure:
    """The Python exception `import tensorflow` raised in the child."""

    type: str
    """Qualified exception type, e.g. "tensorflow.python.framework.errors_impl.NotFoundError"."""
    message: str
    traceback: list[str] = field(default_factory=list)
    """The innermost frames, one "file:line in function" each, outermost first (a tail)."""
    chain: list[str] = field(default_factory=list)
    """"Type: message" of the exceptions this one was raised from or during (__cause__/__context__)."""
    events: list[LogEvent] = field(default_factory=list)
    """What tfdoctor.logtext.stderr recognises in the message and the chain (a symbol, a library...)."""

    def kinds(self) -> set[str]:
        return {e.kind for e in self.events}


@dataclass
class MemoryInfo:
    current: int
    peak: int


@dataclass
class PhysicalDevice:
    name: str
    """As TensorFlow lists it: "/physical_device:GPU:0"."""
    device_type: str
    details: dict[str, str] = field(default_factory=dict)
    """tf.config.experimental.get_device_details (values as text), e.g. {"device_name": "METAL"}."""
    details_error: str | None = None
    memory_growth: bool | None = None
    """GPUs: what get_memory_growth read back after set_memory_growth(True); None when not set."""
    memory_growth_error: str | None = None
    memory_info: MemoryInfo | None = None
    """tf.config.experimental.get_memory_info after the placement ops ran, where supported."""
    memory_info_error: str | None = None

    @property
    def index(self) -> str:
        return self.name.rsplit(":", 1)[-1]


@dataclass
class LogicalDevice:
    name: str
    device_type: str


@dataclass
class Placement:
    """A small op pinned with tf.device(requested); `device` is where its output really lives."""

    requested: str
    """"/CPU:0", "/GPU:0"..."""
    device: str | None = None
    """The output tensor's .device, e.g. "/job:localhost/replica:0/task:0/device:GPU:0"."""
    correct: bool | None = None
    """Whether the result matched the expected numbers."""
    error: str | None = None

    @property
    def on_requested_device(self) -> bool:
        if not self.device:
            return False
        want = self.requested.strip("/").upper()
        return self.device.upper().endswith("DEVICE:" + want)


@dataclass
class KerasFacts:
    version: str | None = None
    """Version of the `keras` distribution, if installed."""
    tf_keras_version: str | None = None
    """Version of the `tf-keras` distribution (Keras 2 for TF 2.16+), if installed."""
    tf_keras_module: str | None = None
    """What `tf.keras` resolved to (module name), e.g. "keras._tf_keras.keras"."""
    tf_keras_resolved_version: str | None = None
    """`tf.keras.__version__`: the Keras that `tf.keras` code really gets."""
    is_keras3: bool | None = None
    """Whether `tf.keras` is Keras 3."""
    use_legacy_keras: str | None = None
    """The TF_USE_LEGACY_KERAS environment variable, as set."""
    default_optimizer: str | None = None
    """Class of tf.keras.optimizers.Adam() (Keras 2 only): "...legacy..." when Keras fell back."""
    error: str | None = None


@dataclass
class PluginLibrary:
    """A shared object TensorFlow loads at import as a plugin."""

    path: str
    source: str
    """"tensorflow-plugins" (a site-packages/tensorflow-plugins dir) or
    "TF_PLUGGABLE_DEVICE_LIBRARY_PATH"."""
    exists: bool = True
    size: int | None = None
    kind: str = "file"
    """"file", "not-a-file" (a directory, FIFO, socket or device named like a library: loading
    it fails, or blocks for a FIFO) or "missing"."""
    file_type: str | None = None
    """"regular", "directory", "fifo", "dangling-link"... (from stat; never opened)."""


@dataclass
class LogEvent:
    """One recognised line of TensorFlow's (or a plugin's, or Python's) stderr."""

    kind: str
    """A key of tfdoctor.logtext.stderr.PATTERNS, e.g. "metal-device", "undefined-symbol"."""
    line: str
    fields: dict[str, str] = field(default_factory=dict)


@dataclass
class LibraryFailure:
    library: str
    error: str = ""


@dataclass
class LogFacts:
    """What TensorFlow's stderr says, read by tfdoctor.logtext.stderr."""

    metal_device: str | None = None
    """"Metal device set to: Apple M1 Pro" -> "Apple M1 Pro"."""
    system_memory: str | None = None
    """"systemMemory: 16.00 GB" -> "16.00 GB"."""
    max_cache_size: str | None = None
    plugin_optimizers: list[str] = field(default_factory=list)
    """Device types of "Plugin optimizer for device_type GPU is enabled."."""
    pluggable_devices: list[str] = field(default_factory=list)
    """Platform names of "Created TensorFlow device (...) -> physical PluggableDevice (... name: METAL ...)"."""
    optimizer_slowdown: list[str] = field(default_factory=list)
    """Optimizers named in Keras' "the v2.11+ optimizer `...` runs slowly on M1/M2 Macs"."""
    optimizer_fallback: bool = False
    """Keras logged "Falling back to the legacy Keras optimizer"."""
    library_failures: list[LibraryFailure] = field(default_factory=list)
    """"Could not load dynamic library 'X'; dlerror: Y"."""
    gpu_libraries_missing: bool = False
    """"Cannot dlopen some GPU libraries."."""
    cpu_instructions_unused: list[str] = field(default_factory=list)
    """Instructions the CPU has but this build does not use (cpu_feature_guard, harmless)."""
    cpu_instructions_missing: list[str] = field(default_factory=list)
    """"compiled to use AVX instructions, but these aren't available on your machine"."""
    fatal: list[str] = field(default_factory=list)
    """Messages of TensorFlow's fatal log lines ("F ...] Check failed: ...")."""
    python_fatal: str | None = None
    """faulthandler's "Fatal Python error: Segmentation fault", or "Timeout" for a hang dump."""
    python_stack: list[str] = field(default_factory=list)
    """The main thread's stack faulthandler dumped (innermost first), "file:line in function"."""
    events: list[LogEvent] = field(default_factory=list)
    """Every recognised line (bounded), for the error classifiers and for reports."""

    def kinds(self) -> set[str]:
        return {e.kind for e in self.events}

    def first(self, kind: str) -> LogEvent | None:
        return next((e for e in self.events if e.kind == kind), None)


@dataclass
class StageError:
    """A part of the child's work that failed after TensorFlow imported (the rest still ran)."""

    stage: str
    error: str


@dataclass
class RuntimeFacts:
    outcome: str
    """One of OUTCOMES."""
    message: str = ""
    """One line saying how the child ended, for people."""
    stage: str | None = None
    """The last stage the child reported (one of STAGES); None when it reported none."""
    duration_s: float | None = None
    timeout_s: float | None = None
    returncode: int | None = None
    signal: str | None = None
    """"SIGILL", "SIGSEGV"... when killed by a signal."""
    python: str = ""
    import_s: float | None = None
    """Seconds `import tensorflow` took inside the child."""
    stage_s: dict[str, float] = field(default_factory=dict)
    """Seconds since the child started at which each stage was reached."""
    tf_version: str | None = None
    tf_git_version: str | None = None
    tf_file: str | None = None
    build_info: dict[str, str] = field(default_factory=dict)
    """tf.sysconfig.get_build_info(), values as text."""
    import_error: ImportFailure | None = None
    physical_devices: list[PhysicalDevice] = field(default_factory=list)
    logical_devices: list[LogicalDevice] = field(default_factory=list)
    placements: list[Placement] = field(default_factory=list)
    keras: KerasFacts | None = None
    plugins: list[PluginLibrary] = field(default_factory=list)
    loading_plugin: str | None = None
    """The library TensorFlow was loading through load_library.py (a plugin, or one of its own
    op libraries: dlopen, constructors, SE_InitPlugin) when the child last wrote its result:
    set when such a file crashed, hung or exit()ed the child; None once the load returned."""
    loaded_plugins: list[str] = field(default_factory=list)
    """Libraries loaded through load_library.py without an exception, in order (TensorFlow's
    own op libraries too, e.g. _audio_microfrontend_op.so in TF 2.19)."""
    env: dict[str, str] = field(default_factory=dict)
    """The allowlisted environment (tfdoctor/inside/collector/core.py ENV_ALLOWLIST) as the
    user set it; credential-like names are never captured."""
    errors: list[StageError] = field(default_factory=list)
    log: LogFacts = field(default_factory=LogFacts)
    stderr_tail: str = ""
    """The end of the child's stderr (bounded)."""
    stderr_bytes: int = 0

    def devices_of_type(self, device_type: str) -> list[PhysicalDevice]:
        return [d for d in self.physical_devices if d.device_type.upper() == device_type.upper()]

    @property
    def gpus(self) -> list[PhysicalDevice]:
        return self.devices_of_type("GPU")

    @property
    def imported(self) -> bool:
        """TensorFlow imported (whatever happened after)."""
        return self.tf_version is not None and self.import_error is None
