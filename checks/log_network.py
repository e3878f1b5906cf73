"""Errors in a pasted log that are not TensorFlow's: the network, a proxy or a missing CA
certificate stopped a download (a package, a dataset, weights). Said as information with the
network's fix, so that no TensorFlow cause is read into them."""

from __future__ import annotations

from tfdoctor import codes
from tfdoctor.advice.fix_answers import ABOUT_THE_LOG
from tfdoctor.advice.log_evidence import evidence, matches_of
from tfdoctor.derived import Derived
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.model import Remediation, Severity, rule

CERTIFICATES = "https://docs.python.org/3/using/mac.html#installation-steps"


@rule(codes.LOG_NETWORK_ERROR, "A download failed on the network, not in TensorFlow", Severity.INFO,
      "pip, conda and Keras' get_file fetch packages, datasets and weights over HTTPS. A read that "
      "timed out, or a certificate Python could not verify (python.org's macOS Python ships "
      "without the CA certificates until its 'Install Certificates.command' is run), stops "
      "them before TensorFlow runs any code: nothing about TensorFlow follows from it.",
      "Retry on a steadier network (pip: --timeout 120), set the proxy (HTTPS_PROXY), or install "
      "the CA certificates for python.org's Python.", CERTIFICATES, fix_answer=ABOUT_THE_LOG)
def network_error(s: Snapshot, d: Derived):
    out = []
    for match in matches_of(s, codes.LOG_NETWORK_ERROR):
        if match.variant == "ssl-certificate":
            minor = s.python.minor if s.python and s.python.version else "3.X"
            fix = Remediation("Python could not verify the server's certificate: on python.org's macOS "
                              "Python, run its Install Certificates.command once (or set SSL_CERT_FILE "
                              "to your CA bundle, as behind a company proxy)",
                              (f'open "/Applications/Python {minor}/Install Certificates.command"',), CERTIFICATES)
            title = "A download failed: Python could not verify the server's certificate (not TensorFlow)"
        else:
            fix = Remediation("The download timed out: retry on a steadier network, with a longer "
                              "timeout (pip install --timeout 120 ...) or through your proxy (HTTPS_PROXY)")
            title = "A download timed out on the network (not TensorFlow)"
        out.append(network_error.finding(evidence(s, match), fix, title=title))
    return out
