"""tfdoctor's built-in checks (installed as the `tfdoctor.checks` package).

Each module defines one Check and registers it in the `tfdoctor.checks` entry-point group, the
same way a third-party plugin does. A check is a pure function of a fact snapshot.
"""
