"""TLS from settings: a server given a certificate and key serves only over TLS."""

from __future__ import annotations

import datetime
from pathlib import Path

import grpc
import pytest
from cardroom.v1 import engine_pb2, engine_pb2_grpc
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from services.common.server import BackgroundServer
from services.common.settings import ServerSettings
from services.engine import server as engine_server


def _self_signed(tmp: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp / "cert.pem", tmp / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


def test_a_server_with_a_certificate_serves_tls_and_refuses_plaintext(
    tmp_path: Path, engine_keys: str
) -> None:
    cert, key = _self_signed(tmp_path)
    settings = ServerSettings(
        service="engine", port=0, workers=1, grace_s=1.0, tls_cert=str(cert), tls_key=str(key)
    )
    with BackgroundServer(engine_server.SPEC, settings) as server:
        target = f"localhost:{server.port}"
        creds = grpc.ssl_channel_credentials(root_certificates=cert.read_bytes())
        with grpc.secure_channel(target, creds) as channel:
            stub = engine_pb2_grpc.EngineServiceStub(channel)
            variants = stub.ListVariants(engine_pb2.ListVariantsRequest(), timeout=10)
            assert {v.name for v in variants.variants} >= {"doudizhu3", "zhengshangyou2"}
        with grpc.insecure_channel(target) as plain:
            with pytest.raises(grpc.RpcError) as refused:
                engine_pb2_grpc.EngineServiceStub(plain).Ping(engine_pb2.PingRequest(), timeout=5)
            assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
