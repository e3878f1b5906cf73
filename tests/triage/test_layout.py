"""tfdoctor.triage.layout: a report's lines marked prose, fenced, quoted or code, as pasted
(CommonMark fences and block quotes, CRLF, terminal escapes, a Python prompt that looks like a
triple quote), and bounded to its first MB."""

from __future__ import annotations

from tfdoctor.triage.layout import MAX_BYTES, lay_out


def _by_text(text: str) -> dict[str, object]:
    return {line.text: line for line in lay_out(text).lines}


def test_fence_markers_are_dropped_and_fenced_lines_marked_with_their_block():
    doc = lay_out("before\n```\nout 1\n```\nbetween\n~~~text\nout 2\n~~~\nafter")
    assert [(line.number, line.text, line.block) for line in doc.lines] == [
        (1, "before", 0), (3, "out 1", 1), (5, "between", 0), (7, "out 2", 2), (9, "after", 0)]
    assert doc.cut_at_end is False


def test_a_fence_closes_only_with_its_own_character_and_length():
    lines = _by_text("````\n```\ninside\n~~~\n````\nout")
    assert lines["```"].fenced and lines["inside"].fenced and lines["~~~"].fenced
    assert not lines["out"].fenced


def test_an_unclosed_fence_may_be_a_cut_paste():
    doc = lay_out("pip list:\n```\nPackage Version")
    assert doc.lines[-1].fenced and doc.cut_at_end is True


def test_inline_code_of_three_backticks_on_one_line_is_no_fence():
    lines = _by_text("```tensorflow-macos 2.9```\nafter")
    assert not lines["after"].fenced
    assert "tensorflow-macos 2.9" in lines  # the wrapping backticks are taken off


def test_python_fences_are_code_and_other_fences_output():
    lines = _by_text("```python\nprint(platform.machine())\n```\n```\nx86_64\n```\n```pycon\n>>> 1\n1\n```")
    assert lines["print(platform.machine())"].code
    assert not lines["x86_64"].code
    assert lines["1"].fenced and not lines["1"].code


def test_a_session_in_a_python_fence_has_code_after_prompts_and_output_below():
    lines = _by_text("```python\n>>> platform.machine()\n'arm64'\n```")
    assert lines["platform.machine()"].code and not lines["'arm64'"].code


def test_quotes_are_marked_and_their_marks_taken_off():
    lines = _by_text("> Python 3.9\n>> macOS 12\n> ```\n> inside\n> ```\nmine")
    assert lines["Python 3.9"].quoted and lines["macOS 12"].quoted
    assert lines["inside"].quoted and lines["inside"].fenced
    assert not lines["mine"].quoted and not lines["mine"].fenced


def test_a_python_prompt_is_not_a_quote():
    lines = _by_text(">>> import platform\n>>> platform.machine()\n'x86_64'\n... \n> quoted")
    assert lines["platform.machine()"].code and not lines["platform.machine()"].quoted
    assert not lines["'x86_64'"].code
    assert lines["quoted"].quoted


def test_a_gt_sign_inside_a_fence_is_text():
    lines = _by_text("```\n> not a quote\n```")
    assert not lines["> not a quote"].quoted


def test_crlf_cr_and_terminal_escapes_are_what_the_terminal_showed():
    doc = lay_out("first\r\n\x1b[31mred\x1b[0m\r\nDownloading 10%\rDownloading 100%\r\n")
    assert [line.text for line in doc.lines][:3] == ["first", "red", "Downloading 100%"]


def test_only_the_first_mb_is_read_and_the_cut_line_is_left_out():
    row = "tensorflow-macos 2.9.0\n"
    text = row * (MAX_BYTES // len(row) + 10)
    doc = lay_out(text)
    assert doc.notes and "first 1,048,576 bytes" in doc.notes[0]
    assert doc.cut_at_end is True
    assert all(line.text == row.strip() for line in doc.lines)
    assert sum(len(line.text) + 1 for line in doc.lines) <= MAX_BYTES


def test_the_bound_counts_bytes_not_characters():
    text = "é" * MAX_BYTES  # two bytes each
    doc = lay_out(text + "\nlast")
    assert doc.notes and sum(len(line.text.encode()) for line in doc.lines) <= MAX_BYTES


def test_bytes_and_lone_surrogates_are_read():
    assert lay_out(b"Python 3.9\n\xff\xfe").lines[0].text == "Python 3.9"
    assert lay_out("a\ud800b").lines[0].text == "a\ufffdb"


def test_a_run_of_blank_lines_is_one_line_for_the_readers():
    """A megabyte of blank lines cost every reader a pass per line (9 s); the lines after keep
    their numbers."""
    doc = lay_out("a\n" + "\n" * 1000 + "b\n> \n> \n```\n\n\n```\n")
    assert [(line.number, line.text) for line in doc.lines][:3] == [(1, "a"), (2, ""), (1002, "b")]
    assert [(line.quoted, line.block) for line in doc.lines if not line.text] == [(False, 0), (True, 0), (False, 1), (False, 0)]
