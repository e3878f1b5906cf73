"""The restore record of an in-place fix, and the undo that returns the environment to it.

`<prefix>/tfdoctor-restore/` (inside the environment, so on its file system):
- record.json: the installed set as `pip inspect` saw it before the first change, each with how
  to install it again; written once (a later fix keeps the first record) and never changed.
- requirements.txt: the same set for people (`pip install --no-deps --force-reinstall -r`).
- files/<name>-<version>/: hard links to the files of each recorded distribution a fix replaces,
  with manifest.json saying where each goes back. pip unlinks a file before writing a new one,
  so the links keep the old contents at no cost, and undo needs no index.
- listing.json: the paths in the directories pip writes to, before the latest fix changed them
  (tfdoctor.fix.leftovers: what a failed pip run left is told apart by it).

Undo removes what is not in the record, puts back what changed (from the kept files, or from
its source with `pip install --no-deps` for one that was not kept), then checks that the
environment holds exactly the recorded set. pip itself is left as it is.
"""

from __future__ import annotations

import csv
import datetime
import io
import json
import os
import shutil
from dataclasses import dataclass
from typing import Callable

from packaging.utils import canonicalize_name

from tfdoctor.facts.snapshot import PackageFacts
from tfdoctor.fix import leftovers
from tfdoctor.fix.errors import UndoFailed
from tfdoctor.fix.runner import run_command
from tfdoctor.fix.sources import source_of
from tfdoctor.fix.steps import pip_argv

RECORD_FILE = "record.json"
KEPT = "files"
LEFT_AS_IT_IS = frozenset({"pip"})
"""Not removed or put back by undo: the pip that does the undo."""


@dataclass(frozen=True)
class Installed:
    key: str
    name: str
    version: str
    requirement: str | None
    """How to install it again: `name==version`, `name @ URL` or `-e DIR`; None when it cannot
    be (its source is not known: never by name from an index)."""
    metadata_location: str | None = None


def installed_set(launch: tuple[str, ...], python: str, progress: Callable[[str], None]) -> dict[str, Installed]:
    """What `pip inspect --local` says is installed, by canonical name."""
    ran = run_command(pip_argv(launch, python, "inspect", "--local"), progress, [], stdout_apart=True,
                      quiet=True)
    if ran.code != 0:
        raise UndoFailed(f"`pip inspect` failed in {python} (exit {ran.code}): "
                         + (ran.tail[-1] if ran.tail else "no output"))
    try:
        found = json.loads(ran.stdout)["installed"]
        return dict(_installed(item) for item in found)
    except (ValueError, KeyError, TypeError) as exc:
        raise UndoFailed(f"`pip inspect` in {python} gave no usable list ({exc})") from None


def _installed(item: dict) -> tuple[str, Installed]:
    meta, direct = item["metadata"], item.get("direct_url") or {}
    name, version = str(meta["name"]), str(meta["version"])
    dir_info, vcs_info = direct.get("dir_info"), direct.get("vcs_info")
    kind = next((k for k in ("vcs", "archive", "dir") if isinstance(direct.get(f"{k}_info"), dict)),
                "unreadable" if direct else None)
    facts = PackageFacts(name, version, direct_url=direct.get("url"), direct_kind=kind,
                         editable=bool(isinstance(dir_info, dict) and dir_info.get("editable")),
                         vcs=vcs_info.get("vcs") if isinstance(vcs_info, dict) else None,
                         vcs_commit=vcs_info.get("commit_id") if isinstance(vcs_info, dict) else None,
                         subdirectory=direct.get("subdirectory"))
    source = source_of(facts, lambda _path: True)
    requirement = f"-e {source.editable}" if source.editable else source.requirement
    return canonicalize_name(name), Installed(canonicalize_name(name), name, version, requirement,
                                              item.get("metadata_location"))


def read_record(record_dir: str) -> dict[str, Installed]:
    """The recorded set; UndoFailed when there is no record or it cannot be read."""
    path = os.path.join(record_dir, RECORD_FILE)
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        return {canonicalize_name(d["name"]): Installed(canonicalize_name(d["name"]), d["name"], d["version"],
                                                        d["requirement"]) for d in data["distributions"]}
    except FileNotFoundError:
        raise UndoFailed(f"no restore record at {path}: nothing to undo") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise UndoFailed(f"the restore record {path} cannot be read ({exc})") from None


def save(launch: tuple[str, ...], python: str, record_dir: str, replaced: set[str],
         progress: Callable[[str], None]) -> str:
    """Write the record unless there is one, keep (hard-link) the files of the recorded
    distributions in `replaced` that are still at their recorded version, and list the
    directories pip writes to (tfdoctor.fix.leftovers). Says what it did."""
    now = installed_set(launch, python, progress)
    os.makedirs(os.path.join(record_dir, KEPT), exist_ok=True)
    record_path = os.path.join(record_dir, RECORD_FILE)
    fresh = not os.path.exists(record_path)
    if fresh:
        _write_once(record_dir, python, now)
    recorded = read_record(record_dir)
    kept = 0
    for key in sorted(replaced & set(now)):
        was = recorded.get(key)
        if was is not None and was.version == now[key].version and now[key].metadata_location:
            kept += _keep_files(record_dir, now[key])
    sites = {os.path.dirname(i.metadata_location) for i in now.values() if i.metadata_location}
    leftovers.take([*sites, os.path.join(os.path.dirname(record_dir), "bin")], record_dir)
    said = "wrote the record of" if fresh else "kept the earlier record of"
    return f"{said} {len(recorded)} distributions in {record_dir}; {kept} files kept as hard links"


def _write_once(record_dir: str, python: str, now: dict[str, Installed]) -> None:
    items = sorted(now.values(), key=lambda i: i.key)
    data = {"schema": 1, "python": python,
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "distributions": [{"name": i.name, "version": i.version, "requirement": i.requirement}
                              for i in items]}
    lines = "".join(f"{i.requirement}\n" if i.requirement else f"# {i.name} {i.version}: from where is not known\n"
                    for i in items)
    for name, text in (("requirements.txt", lines),
                       (RECORD_FILE, json.dumps(data, indent=1) + "\n")):  # record.json last: it marks done
        tmp = os.path.join(record_dir, f".{name}.tmp{os.getpid()}")
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, os.path.join(record_dir, name))


def _kept_dir(record_dir: str, key: str, version: str) -> str:
    return os.path.join(record_dir, KEPT, f"{key}-{version}")


def _keep_files(record_dir: str, dist: Installed) -> int:
    """Hard links (copies across file systems) to every file the distribution's RECORD lists,
    in a directory that appears whole or not at all."""
    target = _kept_dir(record_dir, dist.key, dist.version)
    if os.path.isdir(target) or not dist.metadata_location:
        return 0
    try:
        with open(os.path.join(dist.metadata_location, "RECORD"), encoding="utf-8", newline="") as handle:
            rows = list(csv.reader(io.StringIO(handle.read())))
    except OSError:
        return 0  # an .egg-info has no RECORD: undo installs it again from its source
    site = os.path.dirname(dist.metadata_location)
    tmp = target + f".tmp{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    manifest = []
    for row in rows:
        if not row or not row[0]:
            continue
        path = os.path.normpath(os.path.join(site, row[0]))
        if os.path.islink(path):
            manifest.append({"path": path, "link": os.readlink(path)})
        elif os.path.isfile(path):
            name = str(len(manifest))
            _link_or_copy(path, os.path.join(tmp, name))
            manifest.append({"path": path, "file": name})
    with open(os.path.join(tmp, "manifest.json"), "w", encoding="utf-8") as handle:
        json.dump(manifest, handle)
    os.rename(tmp, target)
    return sum(1 for entry in manifest if "file" in entry)


def prune(record_dir: str) -> int:
    """After a fix: drop the kept files of distributions it left as they were (every file still
    the very one kept), which would otherwise keep their space alive after they are gone; how
    many distributions' files were dropped."""
    dropped = 0
    kept_root = os.path.join(record_dir, KEPT)
    for name in sorted(os.listdir(kept_root)) if os.path.isdir(kept_root) else []:
        kept = os.path.join(kept_root, name)
        try:
            with open(os.path.join(kept, "manifest.json"), encoding="utf-8") as handle:
                manifest = json.load(handle)
            untouched = all("file" not in e or (os.path.exists(e["path"])
                                                and os.path.samefile(e["path"], os.path.join(kept, e["file"])))
                            for e in manifest)
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if untouched:
            shutil.rmtree(kept, ignore_errors=True)
            dropped += 1
    return dropped


def _link_or_copy(source: str, dest: str) -> None:
    try:
        os.link(source, dest)
    except OSError:  # another file system, or links not allowed: a copy
        shutil.copy2(source, dest)


def undo(launch: tuple[str, ...], python: str, record_dir: str, progress: Callable[[str], None],
         listing: str | None = None) -> str:
    """Return the environment to the recorded set exactly; says what it did. UndoFailed when
    it cannot, with what still differs. `listing` (a fix's own, taken before it changed the
    environment): files no distribution owns that appeared since go too."""
    wanted = read_record(record_dir)
    now = installed_set(launch, python, progress)
    remove = sorted(now[k].name for k in now if k not in LEFT_AS_IT_IS
                    and (k not in wanted or wanted[k].version != now[k].version))
    back = [wanted[k] for k in sorted(wanted) if k not in LEFT_AS_IT_IS
            and (k not in now or now[k].version != wanted[k].version)]
    if remove:
        progress(f"  removing {len(remove)}: {' '.join(remove)}")
        ran = run_command(pip_argv(launch, python, "uninstall", "-y", "--", *remove), progress, [])
        if ran.code != 0:
            raise UndoFailed(f"`pip uninstall` failed (exit {ran.code}): " + (ran.tail[-1] if ran.tail else ""))
    swept = leftovers.sweep(listing)
    online = [dist for dist in back if not _put_back(_kept_dir(record_dir, dist.key, dist.version))]
    unknown = [f"{d.name} {d.version}" for d in online if not d.requirement]
    if unknown:
        raise UndoFailed(f"{', '.join(unknown)} cannot be installed again: its files were not kept and "
                         "where it came from is not known")
    if online:
        editables = [w for d in online if d.requirement and d.requirement.startswith("-e ")
                     for w in ("-e", d.requirement[3:])]
        reqs = [d.requirement for d in online if d.requirement and not d.requirement.startswith("-e ")]
        progress(f"  installing again from their sources: {' '.join(d.requirement or '' for d in online)}")
        ran = run_command(pip_argv(launch, python, "install", "--no-deps", *editables, "--", *reqs), progress, [])
        if ran.code != 0:
            raise UndoFailed(f"installing {', '.join(d.name for d in online)} again failed (exit {ran.code})"
                             + (f": {ran.index}" if ran.index else ""))
    after = installed_set(launch, python, progress)
    differ = [f"{key} {_version(after, key)} instead of {_version(wanted, key)}"
              for key in sorted((set(after) | set(wanted)) - LEFT_AS_IT_IS)
              if _version(after, key) != _version(wanted, key)]
    if differ:
        raise UndoFailed(f"the environment still differs from the record: {'; '.join(differ)}")
    return (f"removed {len(remove)}" + (f" (and {swept} files a failed install left)" if swept else "")
            + f", put back {len(back) - len(online)} from the kept files, installed {len(online)} "
            "again: the environment holds the recorded set")


def _version(dists: dict[str, Installed], key: str) -> str:
    return dists[key].version if key in dists else "not installed"


def _put_back(kept: str) -> bool:
    """Put a kept distribution's files back where they were; False when none were kept."""
    try:
        with open(os.path.join(kept, "manifest.json"), encoding="utf-8") as handle:
            manifest = json.load(handle)
    except (OSError, ValueError):
        return False
    for entry in manifest:
        path = entry["path"]
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if os.path.lexists(path):
            os.unlink(path)
        if "link" in entry:
            os.symlink(entry["link"], path)
        else:
            _link_or_copy(os.path.join(kept, entry["file"]), path)
    return True
