"""Every reader of tfdoctor.triage runs in time linear in the report: a bug report is hostile
text, and a reader that backtracks or rescans would take minutes on a pasted megabyte.

Adversarial text for each reader is made of that reader's own pieces (rows of `pip list`, conda
info keys, thousands of backticks and quote marks, long paths, prompts, template headings,
version words...), repeated to 100 KB and to 1 MB, as many lines and as one long line. The 1 MB
text must cost about 10 times the 100 KB one: the ratio of the best timings of each is asserted
below MAX_RATIO. No absolute time is asserted.
"""

from __future__ import annotations

from typing import Callable

import pytest
from support.cpu_time import cost_ratio

from tfdoctor.triage import read_tfdoctor
from tfdoctor.triage.contradictions import contradictions
from tfdoctor.triage.evidence import Fact, Found
from tfdoctor.triage.facts import READERS, read_report
from tfdoctor.triage.layout import Document, lay_out

pytestmark = pytest.mark.slow  # time growth: every reader timed at two sizes

SMALL, LARGE = 100 * 1024, 1000 * 1024
"""100 KB and 1 MB (just under layout.MAX_BYTES, so all of it is read)."""
MAX_RATIO = 30.0
"""Ten times the text: linear costs about 10 times, quadratic about 100. The room above 10 is the
CPU caches': a 1 MB text's objects outgrow the caches a 100 KB one fits in, and the layout was
measured at 20.7 to 25.2 times while the other test worker ran memory-heavy tests (CI rehearsals
of this stop)."""
MIN_SECONDS = 0.02
"""Each timing repeats its call until this much processor time has passed (timer noise), then
divides; processor time, so that other processes on a shared machine do not count."""

PIECES: dict[str, list[str]] = {
    "issue template": ["### Python version\n\n3.9\n\n", "- OS Platform and Distribution (e.g., Linux Ubuntu 16.04): macOS 13 M1\n",
                       "### TensorFlow version\n" + "#" * 50 + "\n"],
    "environment dump": ["Collecting environment information...\nPyTorch version: 2.1.2\nOS: macOS 14.2.1 (arm64)\nCPU:\nApple M1\n",
                         "== check python ==\npython version: 3.9.1\nmac version: ('13.1', ('', '', ''), 'arm64')\n",
                         "[pip3] numpy==1.26.2\n[conda] numpy 1.26.2 py311h728a8a3_0\n"],
    "conda": ["     active environment : base\n               platform : osx-64\n       virtual packages : __osx=13.1=0\n",
              "# packages in environment at /Users/x/miniforge3:\n#\nnumpy                     1.24.3          py311h728a8a3_0\n",
              "name: tf\nchannels:\n  - apple\ndependencies:\n  - numpy=1.22.4=py39h7df2422_0\n  - pip:\n      - keras==2.9.0\n",
              "    platform : " * 3 + "\n",
              "$ conda list | grep tf\ntensorflow-deps 2.9.0 0 apple\n"],
    "pip": ["absl-py                      1.4.0\n", "Package Version\n------- -------\nabsl-py 1.4.0\n",
            "absl-py==1.4.0\nname @ file:///x/tensorflow_macos-2.9.2-cp39-cp39-macosx_11_0_arm64.whl\n",
            "Requirement already satisfied: numpy in /x/lib/python3.9/site-packages (from tf) (1.0)\n",
            "Successfully installed " + "tensorflow-macos-2.9.0 " * 20 + "\n",
            "  Downloading tensorflow-2.13.0-cp311-cp311-macosx_10_15_x86_64.whl (1 MB)\n",
            "Name: tensorflow\nVersion: 2.15.0\n", ".whl" * 30 + "\n",
            "$ pip list | grep tensorflow\ntensorflow-macos 2.9.0\n" + "| pip list " * 20 + "\n"],
    "system tools": ["ProductVersion:\t13.2.1\nmachdep.cpu.brand_string: Apple M1 Max\nhw.optional.arm64: 1\n",
                     "Darwin mbp 22.3.0 Darwin Kernel Version 22.3.0: x; root:xnu-1~2/RELEASE_ARM64_T6000 arm64\n",
                     "/usr/bin/python3: Mach-O universal binary with 2 architectures: [x86_64:Mach-O] [arm64e:Mach-O]\n",
                     "macOS-13.2-arm64-arm-64bit Linux-5.15.49-linuxkit-aarch64-with-glibc2.31 " * 10 + "\n",
                     "python: Mach-O " * 20 + "\n"],
    "command output": ["$ uname -m\narm64\n", "```\nPython 3.9.13 (main, Aug 25 2022)\n[Clang 12.0.0 ] :: Anaconda, Inc. on darwin\n", '% python3 -c "import platform; print(platform.machine())"\nx86_64\n',
                       ">>> sys.executable\n'/usr/bin/python3'\n", "$ which python\n/x/" * 20 + "bin/python\n",
                       "python " * 60 + "--version\n", "> R.version$arch\n[1] \"x86_64\"\n",
                       "`platform.machine()` returns 'x86_64' and `uname -m` gives arm64 " * 3 + "\n"],
    "TensorFlow log": ["Metal device set to: Apple M1 Pro\n",
                       "incompatible architecture (have 'x86_64', need 'arm64') " * 5 + "\n",
                       "To enable the following instructions: AVX2 FMA, in other operations, rebuild\n"],
    "printed values": ["```\nTensor Flow Version: 2.5.0\nMachine: arm64\nPlatform: macOS-12.0.1-arm64-arm-64bit\n",
                       "```\ntf.__version__ = " + "2." * 100 + "\n"],
    "paths": ['  File "/Users/x/miniforge3/envs/tf/lib/python3.9/site-packages/tensorflow/__init__.py", line 1\n',
              "/a" * 2000 + "\n", "/opt/homebrew/Cellar/python@3.11/lib/python3.11/site-packages/x-1.0.dist-info/ "],
    "environment variables": ["export TF_USE_LEGACY_KERAS=1\n", "os.environ['TF_X'] = '1'\n",
                              "TF_" * 300 + "=\n", "os.environ[" * 100 + "'TF_X'\n", "x" * 390 + "os.environ['TF_X'" * 20 + "\n",
                              "%env TF_X " + "1" * 300 + "\n"],
    "prose": ["M1 Max, Ventura, Python 3.10, tensorflow-macos 2.9 and tensorflow-metal 0.5.\n",
              "Python 3.1 macOS 13 TF 2.1 arm64 x86_64 Apple silicon docker image miniforge " * 10 + "\n",
              "tensorflow " * 20 + "\n", "macOS " * 20 + "\n", " " * 1000 + "\n"],
}
LAYOUT_PIECES = ["`" * 1000 + "\n", "```\n", "~~~python\n>>> x\n", ">" * 1000 + " x\n", "> > > quoted\n",
                 "\x1b[31mred\x1b[0m\r\n", "progress 10%\r" * 50 + "\n"]
TFDOCTOR_PIECES = ["## tfdoctor 0.1.0 report\n\n`/x/python: Python 3.11.7 (x86_64 under Rosetta 2), macOS 14.3`\n",
                   '```\n{"target": {\n```\n', "<details><summary>Environment</summary>\n_Home directory\n"]


def _text(piece: str, size: int) -> str:
    return (piece * (size // len(piece) + 1))[:size]


def _ratio(run: Callable[[str], Callable[[], object]], piece: str) -> float:
    return cost_ratio(run(_text(piece, SMALL)), run(_text(piece, LARGE)), MIN_SECONDS)


def _reader(name: str) -> Callable[[Document, Found], None]:
    return dict(READERS)[name]


@pytest.mark.parametrize(("name", "piece"), [(name, piece) for name, pieces in PIECES.items() for piece in pieces],
                         ids=[f"{name}-{i}" for name, pieces in PIECES.items() for i in range(len(pieces))])
def test_each_reader_is_linear_in_its_own_pieces(name, piece):
    reader = _reader(name)

    def prepared(text: str) -> Callable[[], object]:
        doc = lay_out(text)
        return lambda: reader(doc, Found())

    ratio = _ratio(prepared, piece)
    assert ratio < MAX_RATIO, f"{name}: 1 MB costs {ratio:.1f} times 100 KB"


@pytest.mark.parametrize("piece", LAYOUT_PIECES + [p.replace("\n", " ") for p in LAYOUT_PIECES])
def test_layout_is_linear(piece):
    ratio = _ratio(lambda text: (lambda: lay_out(text)), piece)
    assert ratio < MAX_RATIO, f"layout: 1 MB costs {ratio:.1f} times 100 KB"


@pytest.mark.parametrize("piece", TFDOCTOR_PIECES)
def test_the_tfdoctor_reader_is_linear(piece):
    def prepared(text: str) -> Callable[[], object]:
        doc = lay_out(text)
        return lambda: read_tfdoctor.read(doc, Found(), read_tfdoctor.Collected())

    ratio = _ratio(prepared, piece)
    assert ratio < MAX_RATIO, f"tfdoctor documents: 1 MB costs {ratio:.1f} times 100 KB"


@pytest.mark.parametrize("piece", [p.replace("\n", " ") for pieces in PIECES.values() for p in pieces][::3])
def test_the_whole_reading_of_one_long_line_is_linear(piece):
    ratio = _ratio(lambda text: (lambda: read_report(text)), piece)
    assert ratio < MAX_RATIO, f"read_report on one long line: 1 MB costs {ratio:.1f} times 100 KB"


def test_contradictions_are_linear_in_the_facts():
    def prepared(text: str) -> Callable[[], object]:
        facts = [Fact("python_version", f"3.{i % 97}", i, "read", "x") for i in range(len(text) // 20)]
        return lambda: contradictions(facts)

    assert _ratio(prepared, "x") < MAX_RATIO
