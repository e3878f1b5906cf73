"""The fields of TensorFlow's issue templates, filled in by the reporter.

Two shapes: the issue form tensorflow/.github/ISSUE_TEMPLATE/tensorflow_issue_template.yml, which
GitHub renders as "### LABEL" headings with the answer below and "_No response_" for an empty
one (GitHub docs, "Syntax for issue forms"), with the labels "TensorFlow Version", "Python
Version", "OS Platform and Distribution", "GPU Model and Memory" (earlier: "Tensorflow Version",
"Python version"); and the older markdown template 00-bug-issue.md, "- LABEL (hint): answer"
lines under "**System information**" ("TensorFlow version (use command below):", "OS Platform
and Distribution (e.g., Linux Ubuntu 16.04):"). The hint in parentheses is the template's, never
the reporter's ("Linux Ubuntu 16.04" is an example).

What the reporter typed is "stated", from "issue template".
"""

from __future__ import annotations

import re
from typing import Iterator, Sequence

from tfdoctor.triage.evidence import TEMPLATE, Found
from tfdoctor.triage.layout import Document, Line
from tfdoctor.triage.read_prose import statements
from tfdoctor.triage.vocabulary import system_named, version_at, version_in

SOURCE = TEMPLATE
FIELDS = {
    "tensorflow version": "tensorflow",
    "tf version": "tensorflow",
    "python version": "python",
    "os platform and distribution": "os",
    "os": "os",
    "operating system": "os",
    "gpu model and memory": "hardware",
    "mobile device": "hardware",
    "python package versions": "packages",
    "package versions": "packages",
    "installed using virtualenv? pip? conda?": "install",
    "tensorflow installed from": "install",
    "have i written custom code": "none",
    "custom code": "none",
    "source": "none",
    "bazel version": "none",
    "gcc/compiler version": "none",
    "cuda/cudnn version": "none",
    "issue type": "none",
    "have you reproduced the bug with tensorflow nightly?": "none",
    "have you reproduced the bug with tf nightly?": "none",
}
"""Template labels (lower case, spaces collapsed, the hint in parentheses left out) -> what their
answer says; "none" for a field whose answer is no fact (its label, "virtualenv? pip? conda?",
is the template's words, not the reporter's). "Python package versions (e.g., TensorFlow
Federated, TensorFlow)" is the field of tensorflow/federated's bug template."""
_NO_ANSWER = ("_no response_", "n/a", "na", "none", "-", "no")
_HEADING = re.compile(r"#{3,4}[ \t]{1,3}(?P<label>[^#]{1,80}?)[ \t]{0,3}#{0,4}[ \t]*")
_BULLET = re.compile(r"[ \t]{0,8}[-*+][ \t]{1,3}(?:\*\*)?(?P<label>[A-Za-z][A-Za-z/ .?]{1,60}?)(?:\*\*)?"
                     r"[ \t]{0,2}(?:\([^()]{0,120}\))?[ \t]{0,2}(?:\*\*)?:(?:\*\*)?[ \t]{0,3}(?P<answer>.{0,400})")


def read(doc: Document, found: Found) -> None:
    lines = doc.lines
    for index, line in enumerate(lines):
        if line.fenced or line.code or len(line.text) > 500:
            continue
        heading = _HEADING.fullmatch(line.text.strip())
        if heading:
            kind = FIELDS.get(_label(heading.group("label")))
            if kind:
                found.claim(line)
                _answer_below(lines, index, kind, found)
            continue
        bullet = _BULLET.fullmatch(line.text)
        kind = FIELDS.get(_label(bullet.group("label"))) if bullet else None
        if bullet and kind:
            found.claim(line)
            answer, at = bullet.group("answer"), line
            if not answer.strip() and index + 1 < len(lines) and _own_answer(lines[index + 1]):
                answer, at = lines[index + 1].text, lines[index + 1]
                found.claim(at)
            for name, value in answer_facts(kind, answer):
                found.add(at, name, value, "stated", SOURCE)


def _own_answer(line: Line) -> bool:
    """Whether the line under an empty "- LABEL:" holds its answer: many reporters type it below
    the template's line. Another field, a heading or a code block is not an answer."""
    text = line.text.strip()
    return bool(text) and not line.fenced and not line.code and len(text) <= 500 \
        and not text.startswith(("#", "-", "*", "+", "```"))  # a field starts with its bullet


def _label(text: str) -> str:
    return " ".join(text.lower().split())


def _answer_below(lines: Sequence[Line], index: int, kind: str, found: Found) -> None:
    """An issue form's answer: the lines under its heading, up to the next heading."""
    for line in lines[index + 1:index + 6]:
        text = line.text.strip()
        if text.startswith("#"):
            return
        if not text or line.fenced:
            continue
        found.claim(line)
        for name, value in answer_facts(kind, text):
            found.add(line, name, value, "stated", SOURCE)


_RANGE = re.compile(r"\d\.\d{1,2}(?:\.\d{1,3})?[ \t]{0,2}(?:-|–|to|through)[ \t]{0,2}v?\d\.\d{1,2}\b")


def _tensorflow_version(answer: str) -> str | None:
    """The version in a TensorFlow-version answer: the template's own command prints
    `tf.version.GIT_VERSION tf.version.VERSION` ("v2.12.0-rc1-12-g0db597d0d75 2.12.0"), where the
    first is a git description and the last the release; else the first version written. A
    range ("1.9-1.13", "2.9 to 2.12": every one tried) says no single version."""
    if _RANGE.search(answer):
        return None
    whole = [word.lstrip("v") for word in answer.split()
             if "." in word and version_at(word.lstrip("v")) == word.lstrip("v")]
    return whole[-1] if whole else version_in(answer)


def answer_facts(kind: str, answer: str) -> Iterator[tuple[str, str]]:
    """The facts one field's answer gives."""
    answer = answer.strip().strip("*`").strip()
    if answer.lower() in _NO_ANSWER or not answer:
        return
    said = list(statements(answer))
    if kind == "tensorflow":
        named = [fact for fact in said if fact[0].startswith("package:") or fact[0] == "tensorflow_version"]
        if named:
            yield from named
        elif _tensorflow_version(answer):
            yield "tensorflow_version", _tensorflow_version(answer) or ""
    elif kind == "packages":
        yield from (fact for fact in said if fact[0].startswith("package:"))
    elif kind == "python":
        version = version_in(answer)
        if version and version.startswith(("2.", "3.")):
            yield "python_version", version
    elif kind == "install":
        yield from (fact for fact in said if fact[0] == "env_manager")
        if re.search(r"(?i)\bconda\b", answer):
            yield "env_manager", "conda"
    elif kind != "none":
        yield from (fact for fact in said if fact[0] in (
            "os", "macos_version", "macos_version_reported", "chip", "hw_arm64", "container"))
        if kind == "os" and (system := system_named(answer)):
            yield "os", system
