"""Errors in a pasted log that are not TensorFlow's: the network, a proxy or a missing CA
certificate stopped a download (a package, a dataset, weights). Said as information with the
network's fix, so that no TensorFlow cause is read into them."""

from __future__ import annotations

from tfdoctor import codes
from tfdoctor.advice.commands import pip, python_cmd
from tfdoctor.advice.fix_answers import ABOUT_THE_LOG
from tfdoctor.advice.log_evidence import evidence, matches_of
from tfdoctor.derived import Derived
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.logtext.network import INDEX_UNREACHABLE, RETRYING
from tfdoctor.model import Remediation, Severity, rule

CERTIFICATES = "https://docs.python.org/3/using/mac.html#installation-steps"


@rule(codes.LOG_NETWORK_ERROR, "A download failed on the network, not in TensorFlow", Severity.INFO,
      "pip, conda and Keras' get_file fetch packages, datasets and weights over HTTPS. A read that "
      "timed out, a certificate Python could not verify (python.org's macOS Python ships "
      "without the CA certificates until its 'Install Certificates.command' is run), or an "
      "index page pip could not fetch ('Could not fetch URL ... - skipping': PyPI has refused "
      "TLS 1.0 and 1.1 since April 2018, so an old pip or OpenSSL is refused) stops them before "
      "TensorFlow runs any code: nothing about TensorFlow follows from it, and pip's 'from "
      "versions: none' after it lists nothing because nothing was read.",
      "Retry on a steadier network (pip: --timeout 120), set the proxy (HTTPS_PROXY), or install "
      "the CA certificates for python.org's Python.", CERTIFICATES, fix_answer=ABOUT_THE_LOG)
def network_error(s: Snapshot, d: Derived):
    out = []
    matches = matches_of(s, codes.LOG_NETWORK_ERROR)
    told_by_pip = {m.line for m in matches if m.variant == INDEX_UNREACHABLE}
    for match in matches:
        if match.variant == "ssl-certificate" and match.line in told_by_pip:
            continue  # the reason pip gave for the page it could not fetch: said there
        if match.variant == "ssl-certificate":
            minor = s.python.minor if s.python and s.python.version else "3.X"
            fix = Remediation("Python could not verify the server's certificate: on python.org's macOS "
                              "Python, run its Install Certificates.command once (or set SSL_CERT_FILE "
                              "to your CA bundle, as behind a company proxy)",
                              (f'open "/Applications/Python {minor}/Install Certificates.command"',), CERTIFICATES)
            title = "A download failed: Python could not verify the server's certificate (not TensorFlow)"
        elif match.variant == INDEX_UNREACHABLE:
            fix, title = _index_unreachable(s, match.fields.get("url", ""), match.fields.get("reason", ""))
        elif match.variant == RETRYING:
            fix, title = _index_unreachable(s, "", match.text)
        else:
            fix = Remediation("The download timed out: retry on a steadier network, with a longer "
                              "timeout (pip install --timeout 120 ...) or through your proxy (HTTPS_PROXY)")
            title = "A download timed out on the network (not TensorFlow)"
        out.append(network_error.finding(evidence(s, match), fix, title=title))
    return out


_OLD_TLS = ("TLSV1_ALERT_PROTOCOL_VERSION", "Legacy TLS", "tlsv1 alert protocol version")
_PYPI_TLS = "https://pypi.org/help/#tls-deprecation"


def _index_unreachable(s: Snapshot, url: str, reason: str) -> tuple[Remediation, str]:
    """pip could not read an index page: the reason pip (or urllib3's retry) gives says which fix."""
    host = url.split("/")[2] if url.count("/") >= 3 else "the package index"
    if "ProxyError" in reason or "proxy" in reason.lower():
        return (Remediation("pip could not connect through the proxy: set it right (HTTPS_PROXY, or pip's "
                            "--proxy http://HOST:PORT), or install where the index is reachable",
                            (pip(s, "config", "list"),)),
                "pip could not reach the package index through the proxy (not TensorFlow)")
    if any(word in reason for word in _OLD_TLS):
        return (Remediation(f"{host} refused this pip's TLS 1.0/1.1 (PyPI requires TLS 1.2 since April 2018): "
                            "upgrade pip without pip, or use a Python built with OpenSSL 1.0.1 or later",
                            (f"curl https://bootstrap.pypa.io/get-pip.py | {python_cmd(s)}",), _PYPI_TLS),
                f"pip could not read {host}: its TLS is too old for the index (not TensorFlow)")
    if "certificate" in reason.lower():
        return (Remediation(f"pip could not verify {host}'s certificate: install the CA certificates "
                            "(python.org's macOS Python: its Install Certificates.command), or name your "
                            "company proxy's CA bundle (pip config set global.cert PATH)",
                            (pip(s, "config", "list"),), CERTIFICATES),
                f"pip could not read {host}: its certificate could not be verified (not TensorFlow)")
    return (Remediation(f"pip could not read {host} ({reason[:120]}): check the network, the proxy "
                        "(HTTPS_PROXY) and the index URL pip is configured with",
                        (pip(s, "config", "list"),)),
            f"pip could not read {host} (not TensorFlow)")
