"""A report's facts as a Snapshot the rules can diagnose: what the report states, and nothing
else. What it does not settle is listed in `Snapshot.unknown`, so a rule that would conclude
from an absence ("TensorFlow is not installed") is not run on a report that never listed the
packages. A tfdoctor snapshot pasted in the report is that environment, read by tfdoctor itself:
it is used whole.
"""

from __future__ import annotations

import copy
from typing import Callable

from tfdoctor import __version__
from tfdoctor.facts.archnames import normalise
from tfdoctor.facts.snapshot import (BinaryInfo, CondaFacts, CondaPackage, HostFacts,
                                     PackageFacts, PythonFacts, Snapshot, TargetOutcome)
from tfdoctor.facts.unknown import KNOWABLE
from tfdoctor.triage.evidence import CONDA_PACKAGE, ENVIRONMENT, Fact, settles
from tfdoctor.triage.facts import ReportFacts
from tfdoctor.triage.vocabulary import compatible

VERSIONS = ("python_version", "macos_version")
"""Facts whose surest value a longer, agreeing version completes."""
DEFAULT_PYTHON = "python3"
"""The interpreter a report's advice names when the report does not give its path."""


def to_snapshot(facts: ReportFacts) -> Snapshot:
    """The snapshot of what the report states; every KNOWABLE fact it does not settle is listed in
    `unknown`, and nothing is invented to fill a field."""
    if facts.collected is not None:
        return copy.deepcopy(facts.collected)
    path = _value(facts, "python_path")
    snapshot = Snapshot(target=TargetOutcome(python=path or DEFAULT_PYTHON, ok=True),
                        host=_host(facts), python=_python(facts), packages=_packages(facts),
                        env=_environment(facts), tfdoctor_version=__version__, redacted=True)
    snapshot.unknown = [name for name in KNOWABLE if not _settled(facts, name)]
    return snapshot


def _any(fact: Fact) -> bool:
    return True


def _read(fact: Fact) -> bool:
    return fact.how == "read"


def _value(facts: ReportFacts, name: str, keep: Callable[[Fact], bool] = _any) -> str | None:
    """The surest value of `name` among the facts `keep` takes, from the reporter's own text (a
    quoted reply may describe someone else's machine). A version is completed by a longer one that
    agrees with it (3.11 read from a wheel name, 3.11.4 stated: 3.11.4)."""
    own = [f for f in facts.facts if f.name == name and not f.quoted]
    fact = min((f for f in own if keep(f)), key=Fact.rank, default=None)
    if fact is None or not fact.value:
        return None
    if name in VERSIONS:
        longer = [f.value for f in own if compatible(f.value, fact.value) and len(f.value) > len(fact.value)]
        return max(longer, key=len) if longer else fact.value
    return fact.value


def _flag(facts: ReportFacts, name: str, keep: Callable[[Fact], bool] = _any) -> bool | None:
    value = _value(facts, name, keep)
    return None if value is None else value == "true"


def _host(facts: ReportFacts) -> HostFacts:
    container = _value(facts, "container")
    return HostFacts(
        system=_value(facts, "os") or "",
        macos_version=_value(facts, "macos_version"),
        macos_version_reported=_value(facts, "macos_version_reported"),
        hw_arm64=_flag(facts, "hw_arm64"),
        chip=_value(facts, "chip"),
        cpu_brand=_value(facts, "cpu_brand", _read),
        container=container.split()[0] if container else None,
    )


def _python(facts: ReportFacts) -> PythonFacts | None:
    names = ("python_version", "python_arch", "python_path", "python_prefix", "python_binary_archs",
             "conda_subdir", "conda_prefix", "translated", "python_host")
    if not any(_value(facts, name) for name in names) and not _packages(facts):
        return None
    path = _value(facts, "python_path") or ""
    archs = (_value(facts, "python_binary_archs", settles) or "").split()
    arch = _value(facts, "python_arch", settles)
    return PythonFacts(
        version=_value(facts, "python_version") or "",
        implementation="",
        executable=path,
        prefix=_value(facts, "python_prefix") or _value(facts, "conda_prefix") or "",
        process_arch=(normalise(arch) or "") if arch else "",
        translated=_flag(facts, "translated", settles),
        binary=BinaryInfo(path=path if archs else "", archs=archs),
        conda=_conda(facts),
        host_program=_value(facts, "python_host"),
    )


def _conda(facts: ReportFacts) -> CondaFacts | None:
    prefix, subdir = _value(facts, "conda_prefix"), _value(facts, "conda_subdir")
    if prefix is None and subdir is None:
        return None
    root = _value(facts, "conda_root") or ""
    packages = []
    for fact in facts.facts:
        if fact.name.startswith(CONDA_PACKAGE) and not fact.quoted:
            version, build, channel = (fact.value.split(" ") + ["", ""])[:3]
            packages.append(CondaPackage(fact.name[len(CONDA_PACKAGE):], version, build or None,
                                         channel or None))
    unique = list({(p.name, p.version): p for p in packages}.values())
    return CondaFacts(prefix=prefix or "", root=root, subdir=subdir, packages=unique)


def _packages(facts: ReportFacts) -> list[PackageFacts]:
    """The listing's distributions when a whole one was pasted (it is the truth about what is
    installed), else every distribution the report names; a TensorFlow version stated without
    its distribution becomes `tensorflow` only when no TensorFlow distribution is named."""
    chosen = facts.listed() if facts.package_list else facts.packages()
    out = [PackageFacts(name, fact.value or None) for name, fact in sorted(chosen.items())
           if not fact.quoted]
    tensorflow = facts.unnamed_tensorflow()
    if tensorflow is not None:
        out.append(PackageFacts("tensorflow", tensorflow.value))
    return out


def _environment(facts: ReportFacts) -> dict[str, str]:
    """The variables the reporter's own text sets or prints, each with one value; a variable set
    to two values (one tried, then another) is left unknown: which held when the error was
    printed, the report does not say. The rest of the environment stays unknown."""
    values: dict[str, set[str]] = {}
    for fact in facts.facts:
        if fact.name.startswith(ENVIRONMENT) and not fact.quoted:
            values.setdefault(fact.name[len(ENVIRONMENT):], set()).add(fact.value)
    return {name: value.pop() for name, value in sorted(values.items()) if len(value) == 1}


def _settled(facts: ReportFacts, knowable: str) -> bool:
    """Whether the report settles one of KNOWABLE's facts."""
    system = _value(facts, "os")
    if knowable == "packages":
        return facts.package_list
    if knowable == "python-arch":
        return _value(facts, "python_arch", settles) is not None
    if knowable == "python-binary":
        return _value(facts, "python_binary_archs", settles) is not None
    if knowable == "macos":
        return _value(facts, "macos_version") is not None or (system not in (None, "Darwin"))
    if knowable == "chip":
        return _value(facts, "chip") is not None or (system not in (None, "Darwin"))
    return False  # plugins: no report lists tensorflow-plugins/; environment: nor its whole environment


def complete(snapshot: Snapshot, facts: ReportFacts) -> list[str]:
    """Fill what a snapshot does not know (`Snapshot.unknown`: one built from a report's fields, or
    written by hand) with what the same report's pasted text settles; what the snapshot knows
    stays. Returns the KNOWABLE names it settled. A snapshot tfdoctor gathered knows them all, and
    is left as it is; so is any snapshot beside a text that holds one of tfdoctor's own (that is
    another environment's, whole)."""
    if facts.collected is not None:
        return []
    text = to_snapshot(facts)
    settled = [name for name in snapshot.unknown if name in _FILLS and name not in text.unknown]
    for name in settled:
        _FILLS[name](snapshot, text)
    if settled and not snapshot.host.system:
        snapshot.host.system = text.host.system
    snapshot.unknown = [name for name in snapshot.unknown if name not in settled]
    return settled


def _fill_arch(snapshot: Snapshot, text: Snapshot) -> None:
    if text.python is None:
        return
    if snapshot.python is None:
        snapshot.python = copy.deepcopy(text.python)
        return
    snapshot.python.process_arch = text.python.process_arch
    if snapshot.python.translated is None:
        snapshot.python.translated = text.python.translated
    if snapshot.python.conda is None:
        snapshot.python.conda = copy.deepcopy(text.python.conda)


def _fill_binary(snapshot: Snapshot, text: Snapshot) -> None:
    if snapshot.python is not None and text.python is not None:
        snapshot.python.binary = copy.deepcopy(text.python.binary)


def _fill_macos(snapshot: Snapshot, text: Snapshot) -> None:
    snapshot.host.macos_version = text.host.macos_version


def _fill_chip(snapshot: Snapshot, text: Snapshot) -> None:
    snapshot.host.chip = text.host.chip
    if snapshot.host.hw_arm64 is None:
        snapshot.host.hw_arm64 = text.host.hw_arm64


_FILLS = {"python-arch": _fill_arch, "python-binary": _fill_binary, "macos": _fill_macos, "chip": _fill_chip}
"""What each KNOWABLE fact fills. The package list and the environment are left to the snapshot:
a report's fields and its text may name different packages, and which list is whole only the
report's author knows."""
