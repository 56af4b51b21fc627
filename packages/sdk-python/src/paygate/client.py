"""Client of the gateway API (``/gw/v1``) for one cash desk."""

from __future__ import annotations

import http.client
import json
import random as _random
import socket
import time
import urllib.parse
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from decimal import Decimal, InvalidOperation
from email.utils import parsedate_to_datetime
from typing import Any, Literal, TypeVar

from ._wire import dumps, from_json, to_json
from .errors import PaygateError
from .signing import new_nonce, sign_request
from .types import (
    Appeal,
    Balance,
    CancelOrderRequest,
    CreateOrderRequest,
    CreateWebhookEndpointRequest,
    Event,
    EventsPage,
    Methods,
    OpenAppealRequest,
    Order,
    OrderCreated,
    Rates,
    RecoverWebhookRequest,
    UpdateWebhookEndpointRequest,
    WebhookAttemptsPage,
    WebhookEndpoint,
    WebhookEndpointCreated,
    WebhookEndpointList,
    WebhookRecovery,
    WebhookSecret,
    WebhookTestEvent,
)

F = TypeVar("F", bound=Callable[..., Any])

#: ``never``: sent once. ``network``: repeated after a failure with no answer. ``network-and-503``:
#: also after ``503`` (only for calls the gateway makes idempotent, an order with an ``orderRef``).
RetryPolicy = Literal["never", "network", "network-and-503"]


def operation(operation_id: str) -> Callable[[F], F]:
    """Marks a method as the SDK's form of the OpenAPI operation ``operation_id``."""

    def mark(fn: F) -> F:
        fn.__paygate_operation__ = operation_id  # type: ignore[attr-defined]
        return fn

    return mark


def _seg(s: str) -> str:
    return urllib.parse.quote(s, safe="")


def _exact_amount(amount: Any) -> Decimal | int:
    if isinstance(amount, bool) or isinstance(amount, float):
        raise TypeError("amount must be a Decimal, a decimal string or an int (a float is not exact)")
    if isinstance(amount, int):
        return amount
    if isinstance(amount, Decimal):
        return amount
    if isinstance(amount, str):
        try:
            d = Decimal(amount.strip())
        except InvalidOperation:
            raise ValueError(f"amount {amount!r} is not a decimal number") from None
        if not d.is_finite():
            raise ValueError(f"amount {amount!r} is not a decimal number")
        return d
    raise TypeError(f"amount must be a Decimal, a decimal string or an int, not {type(amount).__name__}")


class Paygate:
    """Client of the gateway API for one cash desk.

    ``base_url`` is where the gateway is (``https://pay.example.com``, without ``/gw/v1``);
    ``key`` (``shp_…``) and ``secret`` are the desk's. Calls that are safe to repeat (reads, order
    creation with an ``order_ref``) are tried up to ``max_attempts`` times with exponential
    back-off from ``retry_base`` seconds; ``timeout`` (seconds, default 180, above the gateway's
    160 s provider cascade) bounds each wait for the socket.
    """

    def __init__(
        self,
        base_url: str,
        key: str,
        secret: str,
        *,
        max_attempts: int = 3,
        retry_base: float = 0.5,
        timeout: float = 180.0,
        sleep: Callable[[float], None] = time.sleep,
        now: Callable[[], float] = time.time,
        random: Callable[[], float] = _random.random,
    ) -> None:
        if not base_url or not key or not secret:
            raise ValueError("Paygate: base_url, key and secret are required")
        parsed = urllib.parse.urlsplit(base_url.rstrip("/"))
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ValueError(f"Paygate: base_url must be an http:// or https:// URL, got {base_url!r}")
        self._scheme = parsed.scheme
        self._host = parsed.hostname
        self._port = parsed.port
        self._prefix = parsed.path
        self._key = key
        self._secret = secret
        self._max_attempts = max(1, max_attempts)
        self._retry_base = retry_base
        self._timeout = timeout
        self._sleep = sleep
        self._now = now
        self._random = random
        #: Gateway clock minus local clock in seconds, learnt from ``Date`` after an ``AUTH_TIMESTAMP_SKEW``.
        self._clock_offset = 0.0
        self.orders = Orders(self)
        self.appeals = Appeals(self)
        self.webhook_endpoints = WebhookEndpoints(self)

    def __repr__(self) -> str:
        # The secret never appears in logs.
        return f"Paygate(base_url={self._scheme}://{self._host}{':' + str(self._port) if self._port else ''}{self._prefix}, key={self._key!r})"

    # ---- reads -----------------------------------------------------------------------------

    @operation("getMethods")
    def methods(self) -> Methods:
        """What the cash desk can accept now."""
        return from_json(Methods, self._call("GET", "/gw/v1/methods", retry="network"))

    @operation("getRates")
    def rates(self, currency: str | None = None) -> Rates:
        """Rates of the currencies the desk allows (one, with ``currency``)."""
        return from_json(Rates, self._call("GET", "/gw/v1/rates", query={"currency": currency}, retry="network"))

    @operation("getBalance")
    def balance(self) -> Balance:
        """The merchant's balance (USD), shared by all its desks."""
        return from_json(Balance, self._call("GET", "/gw/v1/balance", retry="network"))

    @operation("listEvents")
    def events_page(
        self, *, after: str | None = None, order_id: str | None = None, delivered: Literal[False] | None = None, limit: int | None = None
    ) -> EventsPage:
        """One page of the events feed (oldest first, ``limit`` 1 to 500, default 100);
        ``delivered=False``: only events not acknowledged with 200."""
        if delivered is not None and delivered is not False:
            raise ValueError("delivered: only False (events not acknowledged yet) can be asked for")
        query = {
            "after": after,
            "orderId": order_id,
            "delivered": None if delivered is None else "false",
            "limit": None if limit is None else str(limit),
        }
        return from_json(EventsPage, self._call("GET", "/gw/v1/events", query=query, retry="network"))

    def events(
        self, *, after: str | None = None, order_id: str | None = None, delivered: Literal[False] | None = None, limit: int | None = None
    ) -> Iterator[Event]:
        """Every event after ``after`` (from the oldest when None), following ``next`` while there are more.
        Remember the id of the last event you processed and pass it next time."""
        while True:
            page = self.events_page(after=after, order_id=order_id, delivered=delivered, limit=limit)
            yield from page.events
            if not page.has_more or not page.next:
                return
            after = page.next

    # ---- transport -------------------------------------------------------------------------

    def _call(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        query: dict[str, str | None] | None = None,
        retry: RetryPolicy,
    ) -> Any:
        # The exact bytes sent are the bytes signed: serialise once, hash and send the same bytes.
        payload = None if body is None else dumps(body)
        qs = urllib.parse.urlencode({k: v for k, v in (query or {}).items() if v is not None})
        target = self._prefix + path + (f"?{qs}" if qs else "")
        skew_retried = False
        attempt = 1
        while True:
            try:
                status, headers, text = self._send(method, self._prefix + path, target, payload)
            except (OSError, http.client.HTTPException) as exc:
                if retry != "never" and attempt < self._max_attempts:
                    self._back_off(attempt)
                    attempt += 1
                    continue
                raise PaygateError(status=0, code="NETWORK_ERROR", detail=str(exc) or type(exc).__name__) from exc
            trace_header = headers.get("x-trace-id")
            if status == 429:
                retry_after: float | None = None
                try:
                    ra = float(headers.get("retry-after", ""))
                    retry_after = ra if ra >= 0 else None
                except ValueError:
                    pass
                raise PaygateError(status=429, code="RATE_LIMITED", trace_id=trace_header, retry_after=retry_after)
            parsed: Any = None
            try:
                parsed = json.loads(text) if text else None
            except ValueError:
                parsed = None
            if not isinstance(parsed, dict):
                parsed = None
            if 200 <= status < 300 and parsed is not None and parsed.get("status") == "ok":
                return parsed.get("result")
            fault = parsed.get("fault") if parsed is not None else None
            fault = fault if isinstance(fault, dict) else {}
            code = fault.get("code") or f"HTTP_{status}"
            detail = fault.get("detail") if parsed is not None else (text[:300] or None)
            err = PaygateError(status=status, code=str(code), detail=detail, trace_id=(parsed or {}).get("traceId") or trace_header)
            if code == "AUTH_TIMESTAMP_SKEW" and not skew_retried:
                # Our clock is off by more than 300 s: learn the gateway's from its Date header and sign again.
                server = _parse_http_date(headers.get("date"))
                if server is not None:
                    self._clock_offset = server - self._now()
                    skew_retried = True
                    continue
            if status == 503 and retry == "network-and-503" and attempt < self._max_attempts:
                self._back_off(attempt)
                attempt += 1
                continue
            raise err

    def _send(self, method: str, signed_path: str, target: str, payload: bytes | None) -> tuple[int, dict[str, str], str]:
        ts = str(int(self._now() + self._clock_offset))
        nonce = new_nonce()
        headers = {
            "X-Gate-Key": self._key,
            "X-Gate-Ts": ts,
            "X-Gate-Nonce": nonce,
            "X-Gate-Sign": sign_request(self._secret, ts, nonce, method, signed_path, payload or b""),
            "Accept": "application/json",
            "User-Agent": "paygate-python/1.0",
        }
        if payload is not None:
            headers["Content-Type"] = "application/json"
        conn_cls = http.client.HTTPSConnection if self._scheme == "https" else http.client.HTTPConnection
        conn = conn_cls(self._host, self._port, timeout=self._timeout)
        try:
            conn.request(method, target, body=payload, headers=headers)
            res = conn.getresponse()
            # A connection lost while the body streams in is a network failure too (raised here).
            raw = res.read()
            return res.status, {k.lower(): v for k, v in res.getheaders()}, raw.decode("utf-8", errors="replace")
        except socket.timeout as exc:
            raise TimeoutError(f"no answer within {self._timeout:g} s") from exc
        finally:
            conn.close()

    def _back_off(self, attempt: int) -> None:
        """Exponential back-off with jitter: base·2^(n−1), scaled by a random factor in [0.5, 1)."""
        self._sleep(self._retry_base * 2 ** (attempt - 1) * (0.5 + self._random() / 2))


def _parse_http_date(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError, IndexError):
        return None


class Orders:
    """``client.orders``: create, read and cancel orders."""

    def __init__(self, client: Paygate) -> None:
        self._c = client

    @operation("createOrder")
    def create(self, request: CreateOrderRequest) -> OrderCreated:
        """Creates an order. With an ``order_ref`` the call is idempotent for an hour, so it is
        retried on network errors and ``503 NO_AVAILABLE_METHOD`` with back-off; without one it is
        sent once (a repeat could create a second order)."""
        body = to_json(request)
        body["amount"] = _exact_amount(request.amount)
        retry: RetryPolicy = "network-and-503" if request.order_ref else "never"
        return from_json(OrderCreated, self._c._call("POST", "/gw/v1/orders", body=body, retry=retry))

    @operation("getOrder")
    def get(self, id_or_ref: str) -> Order:
        """Reads an order by its ``ord_`` id or by the merchant's ``orderRef`` (the newest with it)."""
        return from_json(Order, self._c._call("GET", f"/gw/v1/orders/{_seg(id_or_ref)}", retry="network"))

    @operation("cancelOrder")
    def cancel(self, id_or_ref: str, reason: str | None = None) -> Order:
        """Cancels an unpaid order; a cancelled one is a no-op, a completed one ``409 ORDER_ALREADY_COMPLETED``."""
        body = to_json(CancelOrderRequest(reason=reason))
        return from_json(Order, self._c._call("POST", f"/gw/v1/orders/{_seg(id_or_ref)}/cancel", body=body, retry="never"))


class Appeals:
    """``client.appeals``: open and read appeals."""

    def __init__(self, client: Paygate) -> None:
        self._c = client

    @operation("openAppeal")
    def create(self, request: OpenAppealRequest) -> Appeal:
        """Opens an appeal on an order closed without credit (a repeat returns the open one)."""
        return from_json(Appeal, self._c._call("POST", "/gw/v1/appeals", body=to_json(request), retry="never"))

    @operation("getAppeal")
    def get(self, appeal_id: str) -> Appeal:
        return from_json(Appeal, self._c._call("GET", f"/gw/v1/appeals/{_seg(appeal_id)}", retry="network"))


class WebhookEndpoints:
    """``client.webhook_endpoints``: the merchant's Standard Webhooks endpoints."""

    def __init__(self, client: Paygate) -> None:
        self._c = client

    @operation("createWebhookEndpoint")
    def create(self, request: CreateWebhookEndpointRequest) -> WebhookEndpointCreated:
        """Creates an endpoint; the answer's ``secret`` (``whsec_…``) is shown this once."""
        return from_json(WebhookEndpointCreated, self._c._call("POST", "/gw/v1/webhook-endpoints", body=to_json(request), retry="never"))

    @operation("listWebhookEndpoints")
    def list(self) -> list[WebhookEndpoint]:
        """The merchant's endpoints, oldest first (without secrets)."""
        return from_json(WebhookEndpointList, self._c._call("GET", "/gw/v1/webhook-endpoints", retry="network")).endpoints

    @operation("getWebhookEndpoint")
    def get(self, endpoint_id: str) -> WebhookEndpoint:
        return from_json(WebhookEndpoint, self._c._call("GET", f"/gw/v1/webhook-endpoints/{_seg(endpoint_id)}", retry="network"))

    @operation("updateWebhookEndpoint")
    def update(self, endpoint_id: str, request: UpdateWebhookEndpointRequest) -> WebhookEndpoint:
        """Changes the fields given (``url``, ``events``, ``desks``, ``description``, ``enabled``)."""
        return from_json(
            WebhookEndpoint, self._c._call("PATCH", f"/gw/v1/webhook-endpoints/{_seg(endpoint_id)}", body=to_json(request), retry="never")
        )

    @operation("rotateWebhookEndpointSecret")
    def rotate_secret(self, endpoint_id: str) -> WebhookSecret:
        """A new secret; the old one keeps signing beside it for 24 hours."""
        return from_json(WebhookSecret, self._c._call("POST", f"/gw/v1/webhook-endpoints/{_seg(endpoint_id)}/rotate-secret", retry="never"))

    @operation("recoverWebhookEndpoint")
    def recover(self, endpoint_id: str, since: str | datetime) -> WebhookRecovery:
        """Queues again every event since ``since`` (ISO 8601 text, or an aware ``datetime``; at most
        30 days ago) that the endpoint did not get."""
        if isinstance(since, datetime):
            if since.tzinfo is None:
                raise ValueError("since: pass an aware datetime (e.g. datetime.now(timezone.utc) - timedelta(hours=1))")
            since = since.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        body = to_json(RecoverWebhookRequest(since=since))
        return from_json(WebhookRecovery, self._c._call("POST", f"/gw/v1/webhook-endpoints/{_seg(endpoint_id)}/recover", body=body, retry="never"))

    @operation("sendWebhookTestEvent")
    def send_test_event(self, endpoint_id: str) -> WebhookTestEvent:
        """Queues a ``webhook.test`` delivery to the endpoint."""
        return from_json(WebhookTestEvent, self._c._call("POST", f"/gw/v1/webhook-endpoints/{_seg(endpoint_id)}/test", retry="never"))

    @operation("listWebhookAttempts")
    def attempts(self, endpoint_id: str, *, before: str | None = None, limit: int | None = None) -> WebhookAttemptsPage:
        """A page of delivery attempts, newest first; pass the page's ``next`` as ``before``."""
        query = {"before": before, "limit": None if limit is None else str(limit)}
        result = self._c._call("GET", f"/gw/v1/webhook-endpoints/{_seg(endpoint_id)}/attempts", query=query, retry="network")
        return from_json(WebhookAttemptsPage, result)
