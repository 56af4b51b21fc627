"""Verification of what the gateway sends: ``X-Gate-*`` callbacks and Standard Webhooks deliveries."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Union

from ._wire import from_json
from .errors import PaygateError
from .signing import sign_callback, signatures_equal
from .types import CallbackEvent, WebhookMessage

#: Oldest accepted timestamp, in seconds either way from now.
DEFAULT_TOLERANCE_SECONDS = 300

#: A mapping of headers (any case: a dict, ``http.server``'s ``self.headers``, a WSGI/Django/Flask
#: ``request.headers``) or a list of ``(name, value)`` pairs.
HeadersLike = Union[Mapping[str, Any], Iterable[tuple[str, str]]]
RawBody = Union[bytes, bytearray, memoryview, str]


def _fail(code: str, message: str) -> PaygateError:
    return PaygateError(status=400, code=code, detail=message, message=f"{code}: {message}")


def _header(headers: HeadersLike, name: str) -> str | None:
    getter = getattr(headers, "get", None)
    if callable(getter):
        # Case-insensitive mappings (email.message.Message, werkzeug, requests) answer any case.
        value = getter(name)
        if value is None:
            value = getter(name.title())
        if value is not None:
            return value[0] if isinstance(value, (list, tuple)) and value else str(value)
        items: Iterable[Any] = headers.items() if hasattr(headers, "items") else []  # type: ignore[union-attr]
    else:
        items = headers  # type: ignore[assignment]
    for k, v in items:
        if str(k).lower() == name:
            return v[0] if isinstance(v, (list, tuple)) and v else str(v)
    return None


def _raw_bytes(raw_body: Any, fn: str) -> bytes:
    if isinstance(raw_body, str):
        return raw_body.encode("utf-8")
    if isinstance(raw_body, (bytes, bytearray, memoryview)):
        return bytes(raw_body)
    if raw_body is None:
        raise _fail("CALLBACK_BODY_MISSING", f"{fn}: no body given. Pass the raw request body, e.g. self.rfile.read(int(self.headers['Content-Length'])) or request.get_data().")
    raise _fail(
        "CALLBACK_BODY_PARSED",
        f"{fn}: the body is a {type(raw_body).__name__}, already parsed. The signature covers the exact bytes the gateway sent, "
        "and re-serialising parsed JSON changes them: pass the raw body as bytes or str.",
    )


def _check_age(ts: int, tolerance: int, now: Callable[[], float] | None, header: str, fn: str) -> None:
    age = int((now or time.time)()) - ts
    if abs(age) > tolerance:
        where = "old" if age >= 0 else "in the future"
        raise _fail(
            "CALLBACK_TIMESTAMP_STALE",
            f"{fn}: {header} is {abs(age)} s {where} (tolerance {tolerance} s): a replayed delivery, or this machine's clock is off.",
        )


def _parse_json(body: bytes, fn: str) -> Any:
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise _fail("CALLBACK_BODY_INVALID", f"{fn}: the signed body is not JSON.") from None


def verify_callback(
    raw_body: RawBody,
    headers: HeadersLike,
    secret: str,
    *,
    tolerance_seconds: int = DEFAULT_TOLERANCE_SECONDS,
    now: Callable[[], float] | None = None,
) -> CallbackEvent:
    """Verifies a callback the gateway sent (``X-Gate-Ts``, ``X-Gate-Event-Id``, ``X-Gate-Sign``)
    and returns its body. Raises ``PaygateError`` with a ``CALLBACK_*`` code on any failure: answer
    such a request with 400 and do not act on it.

    ``X-Gate-Sign`` is hex HMAC-SHA256 (key: the desk secret) over
    ``{X-Gate-Ts}.{X-Gate-Event-Id}.{raw body}``, compared in constant time, either hex case; a
    ``X-Gate-Ts`` more than ``tolerance_seconds`` from now is refused as a replay (the gateway signs
    each attempt afresh, so a retried callback is never stale).
    """
    fn = "verify_callback"
    body = _raw_bytes(raw_body, fn)
    if not isinstance(secret, str) or secret == "":
        raise _fail("CALLBACK_SECRET_MISSING", f"{fn}: the desk secret is empty; pass the secret of the cash desk the order belongs to.")
    if headers is None:
        raise _fail("CALLBACK_HEADERS_MISSING", f"{fn}: no headers given.")
    ts = _header(headers, "x-gate-ts")
    event_id = _header(headers, "x-gate-event-id")
    sign = _header(headers, "x-gate-sign")
    missing = [n for n, v in (("X-Gate-Ts", ts), ("X-Gate-Event-Id", event_id), ("X-Gate-Sign", sign)) if not v]
    if missing:
        raise _fail("CALLBACK_HEADERS_MISSING", f"{fn}: header {', '.join(missing)} missing; this request was not sent by the gateway (or a proxy dropped the headers).")
    assert ts is not None and event_id is not None and sign is not None
    if not re.fullmatch(r"\d{1,12}", ts):
        raise _fail("CALLBACK_TIMESTAMP_INVALID", f'{fn}: X-Gate-Ts "{ts}" is not Unix seconds.')
    expected = sign_callback(secret, ts, event_id, body)
    if not signatures_equal(sign.strip(), expected):
        raise _fail(
            "CALLBACK_SIGNATURE_MISMATCH",
            f"{fn}: signature does not match. Either the secret is wrong (each cash desk has its own; check for stray whitespace) "
            "or the body is not the exact bytes received (parsed and re-serialised, re-encoded, or trimmed).",
        )
    _check_age(int(ts), tolerance_seconds, now, "X-Gate-Ts", fn)
    data = _parse_json(body, fn)
    if not isinstance(data, dict):
        raise _fail("CALLBACK_BODY_INVALID", f"{fn}: the signed body is not a JSON object.")
    return from_json(CallbackEvent, data)


def _webhook_key(secret: str, fn: str) -> bytes:
    if not isinstance(secret, str) or secret == "":
        raise _fail("CALLBACK_SECRET_MISSING", f"{fn}: the endpoint secret is empty; pass the whsec_… secret shown when the endpoint was created.")
    encoded = secret.strip()
    if encoded.startswith("whsec_"):
        encoded = encoded[len("whsec_") :]
    try:
        key = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        key = b""
    if not key:
        raise _fail("CALLBACK_SECRET_INVALID", f"{fn}: the endpoint secret is not whsec_ followed by base64.")
    return key


def sign_webhook(secret: str, msg_id: str, timestamp: str, raw_body: RawBody) -> str:
    """``webhook-signature`` of one secret: ``v1,`` + base64 HMAC-SHA256 over ``{id}.{timestamp}.{body}``."""
    key = _webhook_key(secret, "sign_webhook")
    body = _raw_bytes(raw_body, "sign_webhook")
    mac = hmac.new(key, f"{msg_id}.{timestamp}.".encode("utf-8") + body, hashlib.sha256).digest()
    return "v1," + base64.b64encode(mac).decode("ascii")


def verify_webhook(
    raw_body: RawBody,
    headers: HeadersLike,
    secret: str,
    *,
    tolerance_seconds: int = DEFAULT_TOLERANCE_SECONDS,
    now: Callable[[], float] | None = None,
) -> WebhookMessage:
    """Verifies a Standard Webhooks delivery of a webhook endpoint (``webhook-id``,
    ``webhook-timestamp``, ``webhook-signature``) with the endpoint's ``whsec_`` secret and
    returns its body. During a rotation the header carries several signatures separated by
    spaces; any one made with ``secret`` is enough. Raises ``PaygateError`` with a ``CALLBACK_*``
    code otherwise.
    """
    fn = "verify_webhook"
    body = _raw_bytes(raw_body, fn)
    key = _webhook_key(secret, fn)
    if headers is None:
        raise _fail("CALLBACK_HEADERS_MISSING", f"{fn}: no headers given.")
    msg_id = _header(headers, "webhook-id")
    ts = _header(headers, "webhook-timestamp")
    signature = _header(headers, "webhook-signature")
    missing = [n for n, v in (("webhook-id", msg_id), ("webhook-timestamp", ts), ("webhook-signature", signature)) if not v]
    if missing:
        raise _fail("CALLBACK_HEADERS_MISSING", f"{fn}: header {', '.join(missing)} missing; this is not a Standard Webhooks delivery.")
    assert msg_id is not None and ts is not None and signature is not None
    if not re.fullmatch(r"\d{1,12}", ts):
        raise _fail("CALLBACK_TIMESTAMP_INVALID", f'{fn}: webhook-timestamp "{ts}" is not Unix seconds.')
    expected = hmac.new(key, f"{msg_id}.{ts}.".encode("utf-8") + body, hashlib.sha256).digest()
    matched = False
    for candidate in signature.split(" "):
        version, _, encoded = candidate.partition(",")
        if version != "v1" or not encoded:
            continue
        try:
            given = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            continue
        # Every candidate is compared, in constant time, whatever an earlier one gave.
        matched = hmac.compare_digest(given, expected) or matched
    if not matched:
        raise _fail(
            "CALLBACK_SIGNATURE_MISMATCH",
            f"{fn}: no v1 signature matches. Either the secret is not this endpoint's (a rotated-out secret stops after 24 hours) "
            "or the body is not the exact bytes received.",
        )
    _check_age(int(ts), tolerance_seconds, now, "webhook-timestamp", fn)
    data = _parse_json(body, fn)
    if not isinstance(data, dict):
        raise _fail("CALLBACK_BODY_INVALID", f"{fn}: the signed body is not a JSON object.")
    return from_json(WebhookMessage, data)
