"""Every real error text of tests/data/logs is recognised however it was pasted (issue 19 class 2):
as printed, wrapped at 80 columns, quoted in markdown inside a code fence, cut in the middle of
its last line after the part that tells it apart, with a logger's timestamps in front, and with
typographic quotes."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from tfdoctor.logtext.catalog import SIGNATURES, recognise

LOGS = Path(__file__).resolve().parents[1] / "data" / "logs"
INDEX = json.loads((LOGS / "SOURCES.json").read_text(encoding="utf-8"))["texts"]


def wrapped(text: str) -> str:
    return "\n".join("\n".join(textwrap.wrap(line, 80, break_on_hyphens=False)) or line
                     for line in text.splitlines())


def quoted(text: str) -> str:
    return "```\n" + "\n".join("> " + line for line in text.splitlines()) + "\n```\n"


def cut(text: str, code: str) -> str:
    """The text cut in the middle of its last line; where the line holds the needle of a
    signature of `code`, in the middle of what follows the needle."""
    lines = text.rstrip("\n").split("\n")
    last = lines[-1]
    needles = [s.needle for s in SIGNATURES if s.code == code and s.needle and s.needle in last]
    start = max((last.index(n) + len(n) for n in needles), default=0)
    lines[-1] = last[:start + (len(last) - start) // 2]
    return "\n".join(lines)


def timestamped(text: str) -> str:
    return "\n".join(f"2024-05-01 10:11:{i % 60:02d},123 ERROR {line}"
                     for i, line in enumerate(text.splitlines()))


def typographic(text: str) -> str:
    """Quotes as a blog, a word processor or a phone's keyboard sets them: ‘…’ and “…”."""
    out, single, double = [], False, False
    for ch in text:
        if ch == "'":
            single = not single
            ch = "\u2018" if single else "\u2019"
        elif ch == '"':
            double = not double
            ch = "\u201c" if double else "\u201d"
        out.append(ch)
    return "".join(out)


WAYS = {"as printed": lambda t, c: t, "wrapped at 80": lambda t, c: wrapped(t),
        "quoted in markdown": lambda t, c: quoted(t), "cut": cut,
        "timestamped": lambda t, c: timestamped(t), "CRLF and colours": lambda t, c: "\x1b[31m" + t.replace("\n", "\x1b[0m\r\n"),
        "with typographic quotes": lambda t, c: typographic(t)}


KNOWN_MISSES = {
    # cut before the part that tells the message apart: nothing left to recognise
    **{(name, "cut"): "cut before what tells the message apart" for name in (
        "conda_resolve_tensorflow_deps.txt", "custom_op_undefined_symbol.txt",
        "gpu_list_empty_tf215.txt",
        # the x86 instructions, the package's name, the Python the installer asked for
        "cpu_guard_onednn_intel_mac.txt", "no_module_named_tensorflow.txt",
        "mlcompute_installer_python39.txt",
        # which distribution's requirement pkg_resources found broken
        "pkg_resources_conflict_tensorflow_pin.txt")},
}
KNOWN_MISSES.update({(name, "cut"): "a person's sentence cut in half states no cause (tfdoctor.logtext.said)"
                     for name in ("said_no_arm64_wheel.txt", "said_h5py_builds_and_fails.txt",
                                  "said_tensorflow_no_gpu.txt", "said_cpu_without_avx.txt")})
"""Pastes left without what names them (strict xfail: a fix makes the test fail until it is removed here)."""


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("entry", INDEX, ids=lambda e: e["file"])
def test_real_text_is_recognised_however_it_was_pasted(entry: dict, way: str,
                                                       request: pytest.FixtureRequest) -> None:
    if (entry["file"], way) in KNOWN_MISSES:
        request.applymarker(pytest.mark.xfail(reason=KNOWN_MISSES[entry["file"], way], strict=True))
    text = (LOGS / entry["file"]).read_text(encoding="utf-8")
    pasted = WAYS[way](text, entry["code"])
    assert entry["code"] in {m.code for m in recognise(pasted)}, pasted


def test_a_message_cut_after_its_head_is_named_without_what_the_cut_took() -> None:
    # GitHub issue titles and forum posts cut a message with an ellipsis, then go on
    title = "RuntimeError: Physical devices cannot be modified after being…\nI set memory growth"
    (match,) = recognise(title)
    assert (match.code, match.fields, match.line) == ("log.device-config-late", {"what": "Physical"}, 1)
    dots = "ERROR: tensorflow_macos-2.9.2-cp39-cp39-macosx_12_0_arm64.whl is not a supported wheel..."
    assert recognise(dots)[0].fields["platform_tag"] == "macosx_12_0_arm64"
    at_end = "status: INTERNAL: platform is already registered with na"
    assert [m.code for m in recognise(at_end)] == ["log.plugin-registered-twice"]


def test_a_head_the_message_goes_on_from_is_not_a_cut() -> None:
    # the head, then a long sentence no signature knows, and no end or ellipsis near: not a cut
    went_on = ("Visible devices cannot be modified " + "while the session is being rebuilt " * 12
               + "\nEpoch 1/10\n" + "step " * 80)
    assert recognise(went_on) == []


def test_a_wrapped_message_keeps_the_users_line_numbers() -> None:
    text = ("Traceback (most recent call last):\n"
            "RuntimeError: module compiled against API version\n"
            "0x10 but this version of numpy is 0xf\n")
    (match,) = recognise(text)
    assert (match.code, match.line, match.fields["compiled"], match.fields["installed"]) == (
        "log.numpy-abi", 2, "0x10", "0xf")
    assert match.text == ("RuntimeError: module compiled against API version 0x10 but this "
                          "version of numpy is 0xf")


# Scope (issue 19 class 4): real texts from public threads that a signature must not claim.
PROTOBUF_OWN_SYMBOL = (  # https://github.com/harskish/sdui/issues/5
    "ImportError: dlopen(/opt/homebrew/Caskroom/miniconda/base/envs/ldm/lib/python3.10/site-packages/"
    "google/protobuf/pyext/_message.cpython-310-darwin.so, 0x000A): symbol not found in flat namespace "
    "(__ZN6google8protobuf15FieldDescriptor12TypeOnceInitEPKS1_)")


def test_a_missing_symbol_of_another_extension_is_not_tensorflows() -> None:
    assert recognise(PROTOBUF_OWN_SYMBOL) == []
    plugin = PROTOBUF_OWN_SYMBOL.replace("google/protobuf/pyext/_message.cpython-310-darwin.so",
                                         "tensorflow-plugins/libmetal_plugin.dylib")
    assert [m.code for m in recognise(plugin)] == ["log.symbol-not-found-plugin"]



def test_pip_refusal_cut_before_its_versions_close_and_from_a_requirements_file() -> None:
    # https://github.com/tensorflow/tensorflow/issues/63096, verbatim: the paste ends in the list
    cut_off = ('ERROR: Could not find a version that satisfies the requirement tensorflow-macos<2.17,>=2.1'
               '6.0rc0; platform_machine == "arm64" and platform_system == "Darwin" (from tensorflow-text)'
               ' (from versions: 2.12.0, 2.13.0rc0, 2.13.0rc1, 2.13.0rc2, 2.13.0, 2.13.1, 2.14.0rc0, 2.14.'
               '0rc1, 2.14.0, 2.14.1, 2.15.0rc0, 2.15.0')
    (match,) = recognise(cut_off)
    assert (match.code, match.fields["package"], match.fields["required_by"]) == (
        "log.pip-no-matching-distribution", "tensorflow-macos", "tensorflow-text")
    # pip's template (src/pip/_internal/resolution/resolvelib/factory.py) for a requirement read
    # from a file: the requirement's origin nests brackets
    from_file = ("ERROR: Could not find a version that satisfies the requirement tensorflow-macos==2.9.0 "
                 "(from -r requirements.txt (line 3)) (from versions: none)")
    (match,) = recognise(from_file)
    assert match.fields["required_by"] == "-r requirements.txt (line 3)"


# Every template has a head (issue 26 class 5): a paste cut right after it still names the message.
FINER = {"log.conda-packages-not-found": {"log.conda-tensorflow-deps-missing"},
         "log.symbol-not-found-plugin": {"log.symbol-not-found"}}


def head_cut(signature) -> str:
    """The signature's own template (its verbatim example) cut where its head ends (a signature
    whose whole pattern is fixed text is its own head)."""
    import re

    head = re.compile(signature.head) if signature.head else signature.regex
    found = head.search(signature.example)
    assert found, f"{signature.variant}: its head is not in its own example"
    return signature.example[:found.end()]


@pytest.mark.parametrize("signature", SIGNATURES, ids=lambda s: s.variant)
def test_every_template_cut_after_its_head_is_still_named(signature) -> None:
    found = {m.code for m in recognise(head_cut(signature))}
    assert found & ({signature.code} | FINER.get(signature.code, set())), head_cut(signature)


def test_a_title_cut_after_a_head_is_named_though_the_report_goes_on() -> None:
    """A report's title holds an error's start ("... stuck with importerror: libcublas.so.9.0",
    googlecolab/colabtools#442's title) and the body goes on about other things: the first line
    is a message cut where the title ends. The same words later in a long text are no cut."""
    body = (LOGS / "keras3_requires_tf_keras.txt").read_text(encoding="utf-8")
    assert len(body) > 300 and "libcublas" not in body
    title = "Google colab tensorflow-gpu stuck with importerror: libcublas.so.9.0"
    assert [(m.fields["library"], m.line) for m in recognise(title + "\n\n" + body)
            if m.variant == "cuda-library-import"] == [("libcublas.so.9.0", 1)]
    assert "log.gpu-libraries" not in {m.code for m in recognise("A long report\n" + title + "\n" + body)}


def test_pip_refusal_cut_after_its_requirement_keeps_the_requirement() -> None:
    # an issue's title quotes pip's line as far as the requirement (tensorflow/tensorflow#47365's title)
    title = "Getting ERROR: Could not find a version that satisfies the requirement tensorflow==2.4.1"
    (match,) = recognise(title + "\n\n" + "I can install 1.8.0. " * 40)
    assert (match.code, match.fields.get("package"), match.fields.get("specifier")) == (
        "log.pip-no-matching-distribution", "tensorflow", "==2.4.1")
    (bare,) = recognise("ERROR: Could not find a version that satisfies the requirement")
    assert "package" not in bare.fields


def test_keras_3_layer_arguments_cut_after_the_layer_name() -> None:
    # keras/src/layers/layer.py: f"Unrecognized keyword arguments passed to {self.__class__.__name__}: {kwargs}"
    (match,) = recognise("ValueError: Unrecognized keyword arguments passed to Dense")
    assert (match.code, match.fields.get("layer")) == ("log.keras3-api", "Dense")


def test_conda_lists_squashed_onto_one_line_are_read_item_by_item() -> None:
    # conda/exceptions.py PackagesNotFoundError: the list is one "  - name" a line, then the
    # channels; a forum paste joins the lines (and some keep only the error's name and the list)
    squashed = ("PackagesNotFoundError: The following packages are not available from current channels:"
                "  - tensorflow-deps  Current channels:  - https://conda.anaconda.org/apple/osx-64"
                "  - https://repo.anaconda.com/pkgs/main/osx-64  To search for alternate channels")
    (match,) = recognise(squashed)
    assert (match.code, match.fields["packages"], match.fields["subdir"]) == (
        "log.conda-tensorflow-deps-missing", "tensorflow-deps", "osx-64")
    assert match.fields["channels"].split(", ") == ["https://conda.anaconda.org/apple/osx-64",
                                                    "https://repo.anaconda.com/pkgs/main/osx-64"]
    (short,) = recognise("conda install -c apple tensorflow-deps returns PackagesNotFoundError:- tensorflow-deps")
    assert (short.code, short.fields["packages"]) == ("log.conda-tensorflow-deps-missing", "tensorflow-deps")
