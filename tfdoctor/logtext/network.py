"""Signatures of errors that are not TensorFlow's at all: the network, a proxy or a missing CA
certificate failed while pip, conda or Keras fetched a package, a dataset or weights. Named so
that they get advice about the network, and no TensorFlow finding is drawn from them."""

from __future__ import annotations

from tfdoctor.logtext.signature import Signature, sig

INDEX_UNREACHABLE, RETRYING = "pip-index-unreachable", "pip-retrying"
INDEX_UNREAD = (INDEX_UNREACHABLE, RETRYING)
"""The variants that say pip never read the index: its "(from versions: none)" lists nothing because of it."""

SIGNATURES: tuple[Signature, ...] = (
    sig("log.network-error", "read-timeout", "install",
        "a download stopped: the network did not answer in time (pip's socket read)",
        r"socket\.timeout: The read operation timed out|TimeoutError: The read operation timed out|"
        r"ReadTimeoutError: HTTPSConnectionPool\(host='(?P<host>[^'\s]{1,200})', port=\d{1,5}\): Read timed out",
        "socket.timeout: The read operation timed out", "https://github.com/rstudio/tensorflow/issues/165",
        needle="timed out", key=()),
    sig("log.network-error", "ssl-certificate", "install",
        "a download was refused: Python could not verify the server's certificate",
        r"\[SSL: CERTIFICATE_VERIFY_FAILED\] certificate verify failed(?::(?P<reason>[^(\n]{1,120}))?",
        "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer certificate",
        "https://github.com/keras-team/keras/issues/14089",
        needle="CERTIFICATE_VERIFY_FAILED", key=()),
    # pip's collector (_handle_get_page_fail, _handle_get_simple_fail; pip/index.py's _handle_fail
    # before pip 10): "Could not fetch URL %s: %s - skipping", the index page it could not read
    # and why (a certificate, TLS 1.0 that PyPI has refused since 2018, a proxy, no network). Its
    # "(from versions: none)" that follows lists nothing because nothing was read.
    sig("log.network-error", INDEX_UNREACHABLE, "install",
        "pip could not read the package index's page, so it saw no versions at all",
        r"Could not fetch URL (?P<url>https?://[^\s:/]{1,200}[^\s]{0,300}): (?P<reason>[^\n]{1,400}?) - skipping",
        "Could not fetch URL https://pypi.python.org/simple/turicreate/: There was a problem confirming "
        "the ssl certificate: [SSL: TLSV1_ALERT_PROTOCOL_VERSION] tlsv1 alert protocol version (_ssl.c:590) - skipping",
        "https://github.com/apple/turicreate/issues/631", needle="Could not fetch URL", key=("url",),
        head=r"Could not fetch URL https?://"),
    # urllib3's warning for each retry of a request (connectionpool.py: "Retrying (%r) after
    # connection broken by %r: %s"), which pip vendors: for an index page that never opened (no
    # network, a proxy, a firewall) it is all a plain `pip install` shows before giving up
    sig("log.network-error", RETRYING, "install",
        "pip's connection to the package index broke and was retried",
        r"Retrying \(Retry\(total=\d{1,3}[^)\n]{0,200}\)\) after connection broken by '?(?P<error>\w{1,60})\(",
        "Retrying (Retry(total=4, connect=None, read=None, redirect=None)) after connection broken by "
        "'ProxyError('Cannot connect to proxy.', NewConnectionError('<pip._vendor.requests.packages.urllib3."
        "connection.VerifiedHTTPSConnection object at 0x000001B1FCB5A160>: Failed to establish a new "
        "connection: [Errno 11001] getaddrinfo failed',))': /simple/tensorflow/",
        "https://github.com/psf/requests/issues/4607", needle="after connection broken by", key=(),
        head=r"Retrying \(Retry\(total=\d{1,3}[^)\n]{0,200}\)\) after connection broken by"),
)
