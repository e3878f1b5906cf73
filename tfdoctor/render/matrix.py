"""`tfdoctor matrix` as a table: one row per TensorFlow minor with its wheels, Pythons, the
tensorflow-metal releases documented, reported to work or to fail with it, the minimum macOS and
the numpy/keras pins; then what to install on this machine."""

from __future__ import annotations

from typing import Any

from packaging.version import Version
from rich import box
from rich.console import Console
from rich.table import Table

from tfdoctor.advice.installs import short_source
from tfdoctor.facts.archnames import ARM64
from tfdoctor.knowledge import best_pair
from tfdoctor.knowledge.matrix import CompatMatrix
from tfdoctor.knowledge.records import GOOD_STATUSES
from tfdoctor.render.common import wide
from tfdoctor.sanitize.terminal import escape


def _pair_label(statuses: dict[str, str]) -> str:
    """{"2.18.0": "undocumented", "2.18.1": "known-working"} -> "known-working (2.18.1), ..."."""
    by_status: dict[str, list[str]] = {}
    for version, status in statuses.items():
        by_status.setdefault(status, []).append(version)
    if len(by_status) == 1:
        return next(iter(by_status))
    return ", ".join(f"{status} ({', '.join(versions)})" for status, versions in by_status.items())


def matrix_rows(m: CompatMatrix, arch: str = ARM64) -> list[dict[str, Any]]:
    """One row per TensorFlow minor: where its code comes from on `arch`, the Pythons, the
    tensorflow-metal releases that are documented, reported to work or reported to fail with it,
    the minimum macOS (wheel tags; the plugin's with Apple's table) and the numpy/keras pins."""
    from tfdoctor.knowledge.binary_evidence import binary_check

    binary = binary_check(arch)
    rows = []
    for key in sorted(m.minors, key=Version):
        minor = m.minors[key]
        releases = list(minor.releases) + list(getattr(minor, "prereleases", ()))
        code: dict[str, list[str]] = {}
        floors = []
        for r in releases:
            dist = r.code.get(arch)
            w = r.wheels(dist, arch) if dist else None
            if w is not None:
                code.setdefault(dist, []).append(r.version)
                floors.append(w.min_macos)
        shims = {v: k for v, k in minor.tensorflow_macos.items() if k in ("thin", "self-shim")}
        metals = []
        metal_floor = None
        for metal in sorted(m.metal_releases.values(), key=lambda x: Version(x.version), reverse=True):
            if arch not in metal.wheels:
                continue
            statuses = {r.version: best_pair.pairing(m, r.version, metal.version, binary=binary).status
                        for r in releases if r.code.get(arch)}
            good = set(statuses.values()) & (set(GOOD_STATUSES) | {"loads-untested"})
            made_for = key in (metal.tf_minors or ()) or key in (metal.documented_tf_minors or ()) or any(
                e.is_pair and e.outcome == "fails" and e.covers(r.version, metal.version)
                for e in m.evidence for r in releases)  # or a public report of the failure
            if not statuses or not (good or ("known-broken" in statuses.values() and made_for)):
                continue  # a release made for another TensorFlow that fails here is no news
            metals.append({"tensorflow_metal": metal.version, "status": _pair_label(statuses),
                           "python": list(metal.wheels[arch].pythons)})
            if set(statuses.values()) & set(GOOD_STATUSES):
                need = m.metal_min_macos(metal, arch)
                metal_floor = need if metal_floor is None or Version(need) < Version(metal_floor) else metal_floor
        pins = m.tf_pins(minor.newest_patch)
        rows.append({
            "tensorflow": key, "newest_patch": minor.newest_patch,
            "code": {dist: versions for dist, versions in code.items()},
            "tensorflow_macos_shims": shims,
            "python": list(minor.pythons(arch)),
            "tensorflow_metal": metals,
            "min_macos": min(floors, key=Version) if floors else None,
            "metal_min_macos": metal_floor,
            "numpy": pins.get("numpy"),
            "keras": pins.get("keras") or pins.get("keras-nightly"),
            "keras_major": minor.keras_major,
        })
    return rows


def _compact_metal(metals: list[dict[str, Any]], words: dict[str, str]) -> str:
    """The tensorflow-metal releases of the compact view: those reported to work, else those
    Apple documents, else those whose binary loads; the others are in --wide."""
    for status in ("known-working", "documented", "loads-untested"):
        chosen = []
        for x in metals:  # "known-broken (2.18.0), known-working (2.18.1)": 1.1.0 (2.18.1)
            part = next((p for p in x["status"].split(", ") if p.split(" ", 1)[0] == status), None)
            if part is not None:
                chosen.append(x["tensorflow_metal"] + (" " + part.split(" ", 1)[1] if " " in part else ""))
        if chosen:
            more = f" (+{len(chosen) - 3})" if len(chosen) > 3 else ""
            return f"{', '.join(chosen[:3])}{more} {words[status]}"
    broken = [x["tensorflow_metal"] for x in metals]
    return f"{', '.join(broken[:3])} broken" if broken else "-"


def _legend(out: Console, every_column: bool) -> None:
    """What the columns mean, said before the table (issue 21), wrapped between words."""
    if every_column:
        text = ("tensorflow-metal: works / broken from runtime reports and the plugin binary's "
                "load check (they win), loads: the binary resolves against that TensorFlow, "
                "untested at run time; documented from Apple's table. macOS: wheel tag / the "
                "plugin's floor with Apple's table. --json prints every fact with its source.")
    else:
        text = ("tensorflow-metal: the releases reported to work with that TensorFlow, else the "
                "ones Apple documents, else the ones whose binary loads. macOS: the oldest its "
                "wheels support / the plugin's floor. --wide shows every column (wheels, every "
                "plugin release, numpy and keras pins); --json every fact with its source.")
    out.print(f"[dim]{escape(text)}[/]", soft_wrap=False)
    out.print()


def render_matrix(m: CompatMatrix, machine: dict[str, Any] | None, out: Console,
                  every_column: bool = False) -> None:
    """Print the legend, the table (compact: what fits 80 columns; `every_column`: the wheels,
    every plugin release and the pins too) and its notes, then the recommendation here."""
    def span(values: list) -> str:
        return "-" if not values else values[0] if len(values) == 1 else f"{values[0]}-{values[-1]}"

    words = {"known-working": "works", "known-broken": "broken", "documented": "documented",
             "loads-untested": "loads",
             "undocumented": "undocumented"}
    table = Table(title=f"TensorFlow on macOS arm64 (wheel facts read {m.facts_read})",
                  box=box.SIMPLE_HEAD, title_justify="left")
    columns = ((("TF", False), ("arm64 wheel", True), ("Python", False), ("tensorflow-metal", True),
                ("macOS", False), ("numpy", True), ("keras", True)) if every_column else
               (("TF", False), ("Python", False), ("tensorflow-metal", True), ("macOS", False)))
    for column, wrap in columns:
        table.add_column(column, no_wrap=not wrap, overflow="fold")
    _legend(out, every_column)
    notes = []
    for row in matrix_rows(m):
        code = ", ".join(row["code"]) or "none"
        metals = "; ".join(
            f"{x['tensorflow_metal']} " + ", ".join(
                " ".join(words.get(w, w) if i == 0 else w for i, w in enumerate(part.split(" ", 1)))
                for part in x["status"].split(", "))
            for x in row["tensorflow_metal"]) or "-"
        macos = row["min_macos"] or "-"
        if row["metal_min_macos"] and row["metal_min_macos"] != row["min_macos"]:
            macos += f"/{row['metal_min_macos']}"
        if every_column:
            table.add_row(escape(row["tensorflow"]), escape(code), span(row["python"]),
                          escape(metals), macos, escape(row["numpy"] or "-"),
                          escape(row["keras"] or "-"))
        else:
            table.add_row(escape(row["tensorflow"]), span(row["python"]),
                          escape(_compact_metal(row["tensorflow_metal"], words)), macos)
        for version, kind in row["tensorflow_macos_shims"].items():
            notes.append(f"tensorflow-macos {version} is " + (
                "a self-shim: it depends only on itself and installs no TensorFlow"
                if kind == "self-shim" else f"a {kind} shim onto tensorflow"))
    (wide(out) if every_column else out).print(table)
    for note in notes if every_column else ():
        out.print(f"[dim]{escape(note)}[/]", soft_wrap=False)
    if machine is None:
        return
    out.print()
    if "error" in machine:
        out.print(f"[bold]For this machine:[/] could not gather facts from {escape(str(machine['python']))}: "
                  f"{escape(str(machine['error']))}", soft_wrap=False)
        return
    where = f"{machine['system']}" + (f" {machine['macos']}" if machine.get("macos") else "")
    out.print(f"[bold]For this machine:[/] {escape(machine['python'])}: Python "
              f"{escape(machine['python_version'])}, {escape(machine['arch'] or '')}, {escape(where)}",
              soft_wrap=False)
    if machine["requirements"]:
        sources = ", ".join(short_source(x) for x in machine["sources"])
        out.print("  Recommended: " + escape(" + ".join(machine["requirements"])
                                            + (f" ({machine['status']}; {sources})" if machine["status"] else "")),
                  soft_wrap=False)
    if not machine["requirements"] or not machine["metal"]:
        out.print(f"  {escape(machine['reason'])}", soft_wrap=False)
    for note in machine["notes"]:
        out.print(f"  [dim]{escape(note)}[/]", soft_wrap=False)
    for command in machine["commands"]:
        out.print(f"  [bold cyan]$ {escape(command)}[/]")
