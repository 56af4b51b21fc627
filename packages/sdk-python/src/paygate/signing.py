"""Request and callback signatures, byte for byte as the gateway computes them."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

Bytes = bytes | bytearray | memoryview | str


def _utf8(b: Bytes) -> bytes:
    return b.encode("utf-8") if isinstance(b, str) else bytes(b)


def sha256_hex(body: Bytes) -> str:
    """Lowercase hex SHA-256 of the exact bytes (the hash of empty input for a request without body)."""
    return hashlib.sha256(_utf8(body)).hexdigest()


def request_signing_string(ts: str, nonce: str, method: str, path: str, body: Bytes) -> str:
    """``{ts}.{nonce}.{METHOD}.{path}.{sha256hex(body)}``; ``path`` without host and query string."""
    return f"{ts}.{nonce}.{method.upper()}.{path.split('?', 1)[0]}.{sha256_hex(body)}"


def sign_request(secret: str, ts: str, nonce: str, method: str, path: str, body: Bytes) -> str:
    """``X-Gate-Sign`` of a ``/gw/v1`` request: hex HMAC-SHA256, key = the desk secret as UTF-8."""
    message = request_signing_string(ts, nonce, method, path, body).encode("utf-8")
    return hmac.new(secret.encode("utf-8"), message, hashlib.sha256).hexdigest()


def sign_callback(secret: str, ts: str, event_id: str, raw_body: Bytes) -> str:
    """``X-Gate-Sign`` of a callback: hex HMAC-SHA256 over ``{X-Gate-Ts}.{X-Gate-Event-Id}.{raw body}``."""
    message = f"{ts}.{event_id}.".encode("utf-8") + _utf8(raw_body)
    return hmac.new(secret.encode("utf-8"), message, hashlib.sha256).hexdigest()


def new_nonce() -> str:
    """24 random bytes as hex: 48 characters, inside the gateway's 8 to 128 window."""
    return secrets.token_hex(24)


_HEX64 = re.compile(r"[0-9a-fA-F]{64}")


def signatures_equal(given: str, expected_hex: str) -> bool:
    """Constant-time comparison of a hex signature (either case) with the expected one."""
    if not _HEX64.fullmatch(given) or not _HEX64.fullmatch(expected_hex):
        return False
    return hmac.compare_digest(given.lower().encode("ascii"), expected_hex.lower().encode("ascii"))
