"""Paygate: a client of the gateway API (``/gw/v1``) and verification of its callbacks and webhooks."""

from .client import Appeals, Orders, Paygate, WebhookEndpoints, operation
from .errors import PaygateError
from .signing import new_nonce, request_signing_string, sha256_hex, sign_callback, sign_request
from .types import *  # noqa: F401,F403 (the wire types are part of the API)
from .types import __all__ as _types_all  # type: ignore[attr-defined]
from .verify import DEFAULT_TOLERANCE_SECONDS, sign_webhook, verify_callback, verify_webhook

__version__ = "1.0.0"

__all__ = [
    "Appeals",
    "DEFAULT_TOLERANCE_SECONDS",
    "Orders",
    "Paygate",
    "PaygateError",
    "WebhookEndpoints",
    "new_nonce",
    "operation",
    "request_signing_string",
    "sha256_hex",
    "sign_callback",
    "sign_request",
    "sign_webhook",
    "verify_callback",
    "verify_webhook",
    *_types_all,
]
