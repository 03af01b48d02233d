"""A loopback HTTPS server with a throwaway self-signed certificate, made at test time
(``cryptography``), for ``open_session {ignoreHttpsErrors}`` on both engines: a browser
refuses the page without it and loads it with it."""

from __future__ import annotations

import datetime
import http.server
import ipaddress
import ssl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from e2e_support import serving

__all__ = ["MARKER", "serve_https"]

#: The page's text: seen only when the page loaded.
MARKER = "self-signed page loaded"


def _self_signed(folder: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "browx test")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=2))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


class _Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = f"<!doctype html><title>https</title><p id=m>{MARKER}</p>".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a browser refusing the certificate drops the handshake: expected


@contextmanager
def serve_https(folder: Path) -> Iterator[str]:
    """``https://127.0.0.1:PORT`` serving one page over a self-signed certificate."""
    folder.mkdir(parents=True, exist_ok=True)
    cert, key = _self_signed(folder)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server = _Server(("127.0.0.1", 0), _Page)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    with serving(server, "https") as url:
        yield url
