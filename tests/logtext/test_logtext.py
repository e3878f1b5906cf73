"""tfdoctor.logtext: real error texts from public threads are recognised with their fields, and
reading a log never fails whatever the file is."""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pytest

from tfdoctor.logtext.catalog import CODES, SIGNATURES, recognise
from tfdoctor.logtext.reader import Reading, keeping_head, read_log, read_log_bytes
from tfdoctor.logtext.training import companion_for

LOGS = Path(__file__).parents[1] / "data" / "logs"
INDEX = json.loads((LOGS / "SOURCES.json").read_text(encoding="utf-8"))["texts"]


def _norm(text: str) -> str:
    return " ".join(text.split())


def _text(reading: Reading) -> str:
    """The whole text of a reading (its `read` is complete afterwards)."""
    return "".join(reading.pieces)


@pytest.mark.parametrize("entry", INDEX, ids=[e["file"] for e in INDEX])
def test_real_error_text_is_recognised_with_its_fields(entry: dict) -> None:
    matches = [m for m in recognise(_text(read_log(LOGS / entry["file"]))) if m.code == entry["code"]]
    assert matches, f"{entry['file']} ({entry['source']}) not recognised as {entry['code']}"
    # a text may show its cause more than once (the fork's op and its installer's folder): one
    # occurrence carries the fields
    carrying = [m for m in matches if all(m.fields.get(name) == value for name, value in entry["fields"].items())]
    assert carrying, [m.fields for m in matches]
    assert carrying[0].line >= 1 and carrying[0].text


def test_at_least_thirty_real_texts_each_with_a_public_source() -> None:
    assert len(INDEX) >= 30
    for entry in INDEX:
        assert entry["source"].startswith(("https://github.com/", "https://stackoverflow.com/questions/",
                                           "https://developer.apple.com/forums/thread/")), entry
    assert {e["code"] for e in INDEX} <= set(CODES)


@pytest.mark.parametrize("signature", SIGNATURES, ids=[s.variant for s in SIGNATURES])
def test_each_signature_is_tested_by_a_real_text_and_its_example_is_verbatim(signature) -> None:
    texts = [(LOGS / e["file"]).read_text(encoding="utf-8") for e in INDEX]
    assert any(signature.regex.search(t) for t in texts), f"no real text exercises {signature.variant}"
    assert any(_norm(signature.example) in _norm(t) for t in texts), "example is not a real text"
    assert signature.regex.search(signature.example)
    assert signature.source and signature.code.startswith("log.")
    if signature.head:  # a head is where the message starts: the full message begins with it
        head = re.compile(signature.head)
        found = signature.regex.search(signature.example)
        assert head.match(signature.example, found.start()), "the head is not the message's start"
        assert signature.needle and signature.needle in head.pattern.replace("\\", "")


def test_variants_are_unique() -> None:
    variants = [s.variant for s in SIGNATURES]
    assert len(variants) == len(set(variants))


def test_healthy_logs_are_not_errors() -> None:
    healthy = (
        "Metal device set to: Apple M1 Pro\n\nsystemMemory: 16.00 GB\nmaxCacheSize: 5.33 GB\n"
        "2023-03-30 13:41:43.720935: I tensorflow/core/common_runtime/pluggable_device/pluggable_device_"
        "factory.cc:272] Created TensorFlow device (/job:localhost/replica:0/task:0/device:GPU:0 with 0 "
        "MB memory) -> physical PluggableDevice (device: 0, name: METAL, pci bus id: <undefined>)\n"
        "Epoch 1/10\n1875/1875 [==============================] - 9s 4ms/step - loss: 0.2\n"
        "Successfully installed tensorflow-macos-2.15.0 tensorflow-metal-1.1.0\n"
        ">>> tf.config.list_physical_devices('GPU')\n"
        "[PhysicalDevice(name='/physical_device:GPU:0', device_type='GPU')]\n"
    )
    assert recognise(healthy) == []
    assert recognise("") == []


def test_pip_lines_of_one_failure_are_one_match_with_the_versions_offered() -> None:
    text = (LOGS / "pip_tensorflow_241_versions.txt").read_text()
    matches = recognise(text)
    assert [m.code for m in matches] == ["log.pip-no-matching-distribution"]
    assert matches[0].count == 2
    assert "2.8.0rc0" in matches[0].fields["available"]


def test_conda_on_the_wrong_platform_is_told_apart_from_a_missing_package() -> None:
    osx64 = recognise((LOGS / "conda_tensorflow_deps_osx64.txt").read_text())[0]
    assert osx64.code == "log.conda-tensorflow-deps-missing" and osx64.fields["subdir"] == "osx-64"
    other = recognise("PackagesNotFoundError: The following packages are not available from current "
                      "channels:\n\n  - tenserflow\n\nCurrent channels:\n\n  - https://repo.anaconda.com/"
                      "pkgs/main/osx-arm64\n")
    assert [m.code for m in other] == ["log.conda-packages-not-found"]
    assert other[0].fields["packages"] == "tenserflow"


def test_companion_packages_of_ops() -> None:
    assert companion_for("SentencepieceOp") == "tensorflow-text"
    assert companion_for("Addons>ImageProjectiveTransformV2") == "tensorflow-addons"
    assert companion_for("IO>ReadFile") == "tensorflow-io"
    assert companion_for("RaggedBincount") is None


def test_plugin_symbol_error_is_told_apart_from_a_custom_op_library() -> None:
    plugin = recognise((LOGS / "metal_plugin_symbol_assign_update.txt").read_text())
    custom = recognise((LOGS / "custom_op_undefined_symbol.txt").read_text())
    # TensorFlow's plugin-loading frame, then the reason
    assert [m.code for m in plugin] == ["log.plugin-load-failed", "log.symbol-not-found-plugin"]
    assert [m.code for m in custom] == ["log.symbol-not-found"]


def test_repeated_messages_are_counted_not_listed() -> None:
    line = "error: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)\n"
    matches = recognise("Epoch 3/10\n" + line * 500)
    assert [(m.code, m.count, m.line) for m in matches] == [("log.metal-oom", 500, 2)]


# --- reading -------------------------------------------------------------------------------


def test_empty_log(tmp_path: Path) -> None:
    path = tmp_path / "empty.log"
    path.write_bytes(b"")
    reading = read_log(path)
    assert recognise(_text(reading)) == []
    log = reading.read
    assert log.empty and log.error is None and not log.binary
    assert "empty" in log.summary()


def test_binary_file_is_not_read_as_a_log(tmp_path: Path) -> None:
    path = tmp_path / "model.h5"
    path.write_bytes(b"\x89HDF\r\n\x1a\n" + bytes(range(256)) * 64)
    reading = read_log(path)
    assert _text(reading) == "" and reading.read.binary and "binary" in reading.read.summary()


def test_missing_file_and_directory_are_results_not_exceptions(tmp_path: Path) -> None:
    assert read_log(tmp_path / "nope.log").read.error == "no such file"
    assert "directory" in (read_log(tmp_path).read.error or "")


def test_500_mb_log_is_read_bounded_and_says_what_was_skipped(tmp_path: Path) -> None:
    """A sparse 500 MB file: the pip error at the head and the traceback at the tail are found;
    the middle is skipped, quickly."""
    path = tmp_path / "train.log"
    head = (LOGS / "pip_tensorflow_metal_none.txt").read_bytes()
    tail = (LOGS / "xla_no_metal_compiler.txt").read_bytes()
    size = 500 * 1024 * 1024
    with open(path, "wb") as handle:
        handle.write(head + b"Epoch 1/1\n" * 1000)
        handle.seek(size - len(tail) - 11)
        handle.write(b"\nEpoch 9/9\n" + tail)
    reading = read_log(path, limit=4 * 1024 * 1024)
    codes = {m.code for m in recognise(_text(reading))}
    log = reading.read
    assert log.size == size and log.read_bytes == 4 * 1024 * 1024
    assert log.skipped_bytes == size - 4 * 1024 * 1024
    assert log.gap_after_line and "skipped" in log.summary()
    assert {"log.pip-no-matching-distribution", "log.xla-no-metal"} <= codes


def test_standard_input_is_bounded_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """Standard input is read up to the limit, and then left: the report says where it was cut."""
    error = b"NotFoundError: Op type not registered 'SentencepieceOp' in binary running on h.\n"
    data = error + b"x" * 3000 + b"\n" + error
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    reading = read_log("-", limit=1000)
    assert [m.fields["op"] for m in recognise(_text(reading))] == ["SentencepieceOp"]
    log = reading.read
    assert log.source == "-" and log.read_bytes == 1000 and log.cut_after == 1000
    assert "cut after 1000 bytes" in log.summary()


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "cp1252", "utf-8-sig"])
def test_logs_in_other_encodings(tmp_path: Path, encoding: str) -> None:
    text = "Ausgabe für café\n" + (LOGS / "no_gpu_kernel_rng.txt").read_text(encoding="utf-8")
    path = tmp_path / "log.txt"
    path.write_bytes(text.encode(encoding))
    reading = read_log(path)
    text = _text(reading)
    assert not reading.read.binary and "für café" in text
    assert [m.fields["op"] for m in recognise(text)] == ["RngReadAndSkip"]


def test_terminal_artefacts_are_cleaned() -> None:
    data = (b"\x1b[31mERROR: Could not find a version that satisfies the requirement tensorflow-macos "
            b"(from versions: none)\x1b[0m\r\n 12/100 [==>....]\r 50/100 [=====>...]\r\n")
    text = _text(read_log_bytes(data))
    assert "\x1b" not in text and "\r" not in text
    assert recognise(text)[0].fields == {"package": "tensorflow-macos", "available": "none"}


def test_invalid_utf8_is_decoded_not_fatal() -> None:
    reading = read_log_bytes(b"Illegal instruction: 4\n\x81\xfe\xfa ok\n" + b"a" * 1000)
    assert [m.code for m in recognise(_text(reading))] == ["log.illegal-instruction"]
    assert reading.read.encoding == "cp1252" and reading.read.replaced == 1


def test_the_head_kept_is_the_text_as_read_up_to_its_budget() -> None:
    """diagnose --log reads the text once and reads its head as a report: the head is what the
    pieces gave (decoded, cleaned), cut at the budget, and complete only once they are taken."""
    data = "Ausgabe \x1b[31mrot\x1b[0m\n".encode("utf-16") + "x\n".encode("utf-16-le") * 50
    reading, head = keeping_head(read_log_bytes(data), budget=12)
    assert head == []
    text = _text(reading)
    assert "".join(head) == text[:12] == "Ausgabe rot\n"
    reading, head = keeping_head(read_log_bytes(b"a\nb\n"), budget=1000)
    text = _text(reading)
    assert "".join(head) == text == "a\nb\n"


def test_readme_lists_every_signature_with_its_source() -> None:
    readme = (Path(__file__).parents[2] / "tfdoctor" / "logtext" / "README.md").read_text()
    for signature in SIGNATURES:
        assert f"| `{signature.code}` | {signature.variant} |" in readme
        assert signature.source in readme


def test_a_utf16_log_larger_than_the_limit_is_read_head_and_tail() -> None:
    """Found by the test below: a BOM said "utf-16", and the decoder started again for the tail,
    which has no BOM, raised UnicodeError. The byte order is named, so the tail decodes too."""
    assert read_log_bytes(b"\xfe\xff\x00\x00\x00", limit=4).read.error is None
    tail = "The TensorFlow library was compiled to use AVX instructions, but these aren't available on your machine.\n"
    for encoding in ("utf-16", "utf-16-be"):
        bom = "\ufeff" if encoding == "utf-16-be" else ""
        data = (bom + "Ausgabe\n" + "x" * 3000 + "\n" + tail).encode(encoding)
        reading = read_log_bytes(data, limit=1000)
        text = _text(reading)
        assert text.startswith("Ausgabe") and "\ufeff" not in text
        assert [m.code for m in recognise(text)] == ["log.avx-missing"]


def test_any_bytes_are_a_result_never_an_exception() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    real = [(LOGS / e["file"]).read_bytes() for e in INDEX[:12]]

    @settings(max_examples=60, deadline=None)
    @given(st.lists(st.one_of(st.binary(max_size=64), st.sampled_from(real)), max_size=6),
           st.integers(min_value=0, max_value=5000))
    def check(parts: list[bytes], limit: int) -> None:
        reading = read_log_bytes(b"".join(parts), limit=limit)
        text = _text(reading)
        assert reading.read.binary or isinstance(text, str)
        for match in recognise(text):
            assert match.code in CODES and match.line >= 1

    check()


def test_matches_carry_only_the_fields_their_signature_declares() -> None:
    by_variant = {s.variant: s for s in SIGNATURES}
    for entry in INDEX:
        for match in recognise((LOGS / entry["file"]).read_text(encoding="utf-8")):
            declared = set(by_variant[match.variant].fields)
            assert set(match.fields) <= declared, (entry["file"], match.variant, match.fields)


def test_paths_that_are_no_log_file_are_a_result_not_a_hang_or_an_exception(tmp_path):
    """Found by tests/hostile/test_fuzz.py: `--log` with a NUL byte raised ValueError; a FIFO blocked."""
    import os

    from tfdoctor.logtext.reader import read_log

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert "not a regular file" in read_log(str(fifo)).read.error
    assert read_log("bad\x00name").read.error == "is not a usable file name"


def test_a_pip_line_quoted_in_prose_loses_the_prose_quote_and_full_stop() -> None:
    """https-deeplearning-ai/...#70 style: "I am getting the error `ERROR: No matching distribution
    found for tensorflow-macos`." names tensorflow-macos with no specifier, not the specifier "`."."""
    (match,) = recognise("I am getting the error `ERROR: No matching distribution found for tensorflow-macos`.")
    assert match.fields["package"] == "tensorflow-macos" and not match.fields.get("specifier")


def test_each_candidate_pip_names_keeps_its_own_requirement_on_tensorflow() -> None:
    """pip's "The conflict is caused by:" lists a candidate a line (factory.py); one that takes any
    `tensorflow` prints no specifier, and neither merging nor a paste read flat gives it the next
    candidate's range."""
    text = ("The conflict is caused by:\n"
            "    magenta 2.1.3 depends on tensorflow\n"
            "    magenta 1.3.3 depends on tensorflow<2.0.0 and >=1.15.0\n"
            "    basic-pitch 0.2.0 depends on tensorflow<2.10 and >=2.4.1; sys_platform != \"darwin\"\n")
    found = {(m.fields["required_by"], m.fields["required_by_version"]): m.fields.get("specifier", "")
             for m in recognise(text) if m.code == "log.pip-depends-on-tensorflow"}
    assert found == {("magenta", "2.1.3"): "", ("magenta", "1.3.3"): "<2.0.0,>=1.15.0",
                     ("basic-pitch", "0.2.0"): "<2.10,>=2.4.1"}


def test_pips_refusal_quoted_in_a_sentence_up_to_the_package_that_asked_is_still_read() -> None:
    """A reporter quoting pip's message may stop, inside the quotes, at "(from magenta)": the
    requirement is pip's all the same; without the closing quote the words after it are no part of
    pip's message, so only its head and the requirement after it are read."""
    quoted = ('With 2.7 and 3.7 always got an error saying "Could not find a version that satisfies the '
              'requirement tensorflow>=1.13.0 (from magenta)"\n')
    (match,) = [m for m in recognise(quoted) if m.code == "log.pip-no-matching-distribution"]
    assert match.fields == {"package": "tensorflow", "specifier": ">=1.13.0", "required_by": "magenta"}
    assert [m.fields for m in recognise(quoted.replace('magenta)"', "magenta) when I ran it"))
            if m.code == "log.pip-no-matching-distribution"] == [{"package": "tensorflow", "specifier": ">=1.13.0"}]
