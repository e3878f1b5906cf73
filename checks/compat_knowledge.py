"""Is tfdoctor's own compatibility knowledge current? Every pairing verdict rests on the bundled
compat_matrix.json: said when its facts are old against the snapshot, or when what is installed
is newer than anything it knows (never fetched from the network)."""

from __future__ import annotations

from packaging.version import Version

from tfdoctor import codes
from tfdoctor.advice.fix_answers import ABOUT_THE_FACTS
from tfdoctor.derived import Derived
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.knowledge.records import version_or_none
from tfdoctor.model import Remediation, Severity, rule

STALE_AFTER_DAYS = 120
"""How old the bundled matrix's facts may be (against the snapshot's date) before the report
says so, as `brew doctor` and `flutter doctor` say an outdated install is outdated."""


def _newest(versions) -> Version | None:
    return max((v for v in map(version_or_none, versions) if v is not None), default=None)


@rule(codes.COMPAT_STALE_KNOWLEDGE, "tfdoctor's compatibility knowledge may be out of date",
      Severity.INFO,
      "Every pairing verdict comes from the compatibility matrix bundled with tfdoctor "
      "(compat_matrix.json), read on the date it names. TensorFlow and tensorflow-metal keep "
      f"releasing: when those facts are more than {STALE_AFTER_DAYS} days older than the "
      "snapshot, or the installed TensorFlow or tensorflow-metal is newer than every release "
      "the matrix knows, verdicts about it are guesses from older releases. tfdoctor never goes "
      "to the network for this on its own.",
      "Update tfdoctor for a newer matrix: git pull in its checkout and install it again the way "
      "you did (its matrix is bundled, so an update brings the new facts); maintainers rebuild "
      "the matrix from the package index with python tools/refresh_matrix.py --write.",
      fix_answer=ABOUT_THE_FACTS)
def stale_knowledge(s: Snapshot, d: Derived):
    m = d.matrix
    reasons, evidence = [], {"facts_read": m.facts_read, "snapshot_created": s.created or None}
    try:
        import datetime

        read = datetime.date.fromisoformat(m.facts_read[:10])
        created = datetime.datetime.fromisoformat(s.created).date() if s.created else None
    except ValueError:
        read = created = None
    if read and created and (created - read).days > STALE_AFTER_DAYS:
        evidence["age_days"] = (created - read).days
        reasons.append(f"its facts were read on {m.facts_read}, {(created - read).days} days "
                       "before this snapshot")
    newest_tf = _newest(v for minor in m.minors.values() for v in
                        [minor.newest_patch, *(r.version for r in minor.releases)])
    newest_metal = _newest(m.metal_releases)
    for package, newest, kind in ((d.tensorflow, newest_tf, "TensorFlow"),
                                  (d.metal, newest_metal, "tensorflow-metal")):
        installed = version_or_none(package.version) if package is not None and package.version else None
        if installed is not None and newest is not None and installed > newest:
            evidence[f"newest_known_{kind.lower().replace('-', '_')}"] = str(newest)
            reasons.append(f"the installed {package.label} is newer than every "
                           f"{kind} release it knows (newest: {newest})")
    if not reasons:
        return None
    return stale_knowledge.finding(
        evidence, Remediation(stale_knowledge.doc.fix),
        title=f"tfdoctor's compatibility knowledge may be out of date: {'; '.join(reasons)}")
