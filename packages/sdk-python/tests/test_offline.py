"""Scenarios that need no gateway: the published vectors, verification, and the client against fakes."""

from __future__ import annotations

import ast
import base64
import hashlib
import pathlib
import re
import hmac
import json
import time
from decimal import Decimal

import pytest
from conftest import DROP, HANG, Answer, FakeGateway, NoSleep, fault, ok

from paygate import (
    CreateOrderRequest,
    CreateWebhookEndpointRequest,
    OpenAppealRequest,
    Paygate,
    PaygateError,
    UpdateWebhookEndpointRequest,
    request_signing_string,
    sha256_hex,
    sign_callback,
    sign_request,
    sign_webhook,
    verify_callback,
    verify_webhook,
)

# ---- published test vectors (copied value for value) -------------------------------------

SECRET = "sk_test_9f8e7d6c5b4a"
TS = "1763700000"
EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
V1_BODY = '{"amount":1500.5,"currency":"RUB","rail":"Sbp","orderRef":"inv-1001"}'
V1_SIGN = "80d4e8f37b5dc77abde49dc46bd034024850f1e2fa1b53541009251ea152ebda"
V2_SIGN = "1da997e5a4ab6b9b0cc011e63ea12df327f40727c91c461e0197e64560d746e3"
V3_SECRET = "секрет-ключ"
V3_BODY = '{"reason":"клиент ушёл"}'
V3_SIGN = "6f79f9b2b9cbe142e0ecddb13d0ba7be4dde331345626e2c7da42ab3fde4dbda"
C1_BODY = (
    '{"event":"order.completed","id":"ord_abc","orderRef":"inv-1001","status":"Completed",'
    '"amount":{"value":"1500.50","currency":"RUB"},"settled":{"value":"16.34531590","currency":"USD","rate":"91.80000000"},'
    '"method":"Classic","rail":"Sbp","occurredAt":"2025-11-21T04:00:00.123Z"}'
)
C1_SIGN = "d8b62d6bdcb3915e556e971a63ea34c38d9f359d18a42dd91e1599822ee16e4b"
C1_HEADERS = {"X-Gate-Ts": TS, "X-Gate-Event-Id": "evt_01", "X-Gate-Sign": C1_SIGN}


def at(ts: str | int, delta: float = 0) -> float:
    return float(ts) + delta


def client(fake: FakeGateway, **kw: object) -> Paygate:
    opts: dict[str, object] = {"sleep": NoSleep(), "timeout": 5.0}
    opts.update(kw)
    return Paygate(fake.url, "shp_" + "a" * 26, SECRET, **opts)  # type: ignore[arg-type]


def order_json(**over: object) -> dict[str, object]:
    o: dict[str, object] = {
        "id": "ord_1",
        "orderRef": None,
        "amount": "1500.50",
        "currency": "RUB",
        "settled": {"amount": "16.34531590", "currency": "USD", "rate": "91.80000000"},
        "method": "Classic",
        "rail": "Sbp",
        "direction": "In",
        "status": "Created",
        "payment": {"url": None, "card": None, "phone": "+79000000000", "account": None, "iban": None, "upiId": None, "holder": "A", "bank": "B"},
        "createdAt": "2026-01-15T12:00:00Z",
        "expiresAt": "2026-01-15T12:15:00Z",
        "sandbox": True,
        "payPageUrl": "https://pay.example/pay/ord_1",
    }
    o.update(over)
    return o


@pytest.mark.scenario("vector-request-signature")
def test_request_signatures_reproduce_the_published_vectors(fake: FakeGateway) -> None:
    assert sha256_hex(b"") == EMPTY_SHA256
    assert sign_request(SECRET, TS, "n0nce-0001", "POST", "/gw/v1/orders", V1_BODY) == V1_SIGN
    # V2: the query string is not part of the signed path.
    assert request_signing_string(TS, "n0nce-0002", "get", "/gw/v1/rates?currency=RUB", b"").endswith(f".GET./gw/v1/rates.{EMPTY_SHA256}")
    assert sign_request(SECRET, TS, "n0nce-0002", "GET", "/gw/v1/rates?currency=RUB", b"") == V2_SIGN
    assert sign_request(V3_SECRET, TS, "n0nce-0003", "POST", "/gw/v1/orders/ord_abc/cancel", V3_BODY.encode("utf-8")) == V3_SIGN

    # The client sends exactly the V1 bytes for the V1 order, and signs them as the gateway checks.
    fake.script = [ok(order_json(), 201)]
    c = client(fake)
    c.orders.create(CreateOrderRequest(amount=Decimal("1500.5"), currency="RUB", rail="Sbp", order_ref="inv-1001"))
    (seen,) = fake.seen
    assert seen.body == V1_BODY.encode()
    assert seen.headers["content-type"] == "application/json"
    assert seen.headers["x-gate-key"] == "shp_" + "a" * 26
    assert 8 <= len(seen.headers["x-gate-nonce"]) <= 128
    assert seen.headers["x-gate-sign"] == sign_request(SECRET, seen.headers["x-gate-ts"], seen.headers["x-gate-nonce"], "POST", "/gw/v1/orders", V1_BODY)

    # A GET with a query signs the bare path over the empty body.
    fake.script = [ok({"settlement": "USD", "rates": [{"code": "RUB", "rate": "91.80000000", "priceable": True}]})]
    rates = c.rates("RUB")
    seen = fake.seen[-1]
    assert seen.path == "/gw/v1/rates?currency=RUB"
    assert seen.headers["x-gate-sign"] == sign_request(SECRET, seen.headers["x-gate-ts"], seen.headers["x-gate-nonce"], "GET", "/gw/v1/rates", b"")
    assert rates.rates[0].rate == "91.80000000"


@pytest.mark.scenario("vector-callback-signature")
def test_callback_vector_verifies_and_one_changed_byte_does_not() -> None:
    assert sign_callback(SECRET, TS, "evt_01", C1_BODY) == C1_SIGN
    event = verify_callback(C1_BODY.encode(), C1_HEADERS, SECRET, now=lambda: at(TS, 5))
    assert (event.event, event.id, event.order_ref, event.status) == ("order.completed", "ord_abc", "inv-1001", "Completed")
    assert event.amount.value == "1500.50" and event.settled.value == "16.34531590" and event.settled.rate == "91.80000000"
    # Headers in any case, and an upper-case hex signature, are accepted.
    lower = {k.lower(): v.upper() if k == "X-Gate-Sign" else v for k, v in C1_HEADERS.items()}
    assert verify_callback(C1_BODY, lower, SECRET, now=lambda: at(TS)).id == "ord_abc"

    tampered = C1_BODY.replace('"1500.50"', '"1500.60"').encode()
    with pytest.raises(PaygateError) as e:
        verify_callback(tampered, C1_HEADERS, SECRET, now=lambda: at(TS))
    assert (e.value.code, e.value.status) == ("CALLBACK_SIGNATURE_MISMATCH", 400)
    with pytest.raises(PaygateError) as e:
        verify_callback(C1_BODY, C1_HEADERS, SECRET + "x", now=lambda: at(TS))
    assert e.value.code == "CALLBACK_SIGNATURE_MISMATCH"
    # A parsed body cannot be verified: the error says why instead of failing the signature.
    with pytest.raises(PaygateError) as e:
        verify_callback(json.loads(C1_BODY), C1_HEADERS, SECRET, now=lambda: at(TS))  # type: ignore[arg-type]
    assert e.value.code == "CALLBACK_BODY_PARSED"
    with pytest.raises(PaygateError) as e:
        verify_callback(C1_BODY, {"X-Gate-Ts": TS}, SECRET, now=lambda: at(TS))
    assert e.value.code == "CALLBACK_HEADERS_MISSING" and "X-Gate-Sign" in str(e.value)


@pytest.mark.scenario("callback-replayed-later")
def test_a_callback_an_hour_old_or_ten_minutes_ahead_is_stale() -> None:
    assert verify_callback(C1_BODY, C1_HEADERS, SECRET, now=lambda: at(TS, 300)).id == "ord_abc"
    assert verify_callback(C1_BODY, C1_HEADERS, SECRET, now=lambda: at(TS, -300)).id == "ord_abc"
    for delta in (3600, -600, 301):
        with pytest.raises(PaygateError) as e:
            verify_callback(C1_BODY, C1_HEADERS, SECRET, now=lambda: at(TS, delta))
        assert (e.value.code, e.value.status) == ("CALLBACK_TIMESTAMP_STALE", 400)
    with pytest.raises(PaygateError) as e:
        verify_callback(C1_BODY, {**C1_HEADERS, "X-Gate-Ts": "1763700000000x"}, SECRET)
    assert e.value.code == "CALLBACK_TIMESTAMP_INVALID"


def standard_signature(secret: str, msg_id: str, ts: str, body: bytes) -> str:
    """Written from the Standard Webhooks specification alone, independently of the SDK."""
    key = base64.b64decode(secret.removeprefix("whsec_"))
    return "v1," + base64.b64encode(hmac.new(key, f"{msg_id}.{ts}.".encode() + body, hashlib.sha256).digest()).decode()


@pytest.mark.scenario("standard-webhook-verify")
def test_standard_webhooks_delivery_verifies_and_forgeries_do_not() -> None:
    secret = "whsec_" + base64.b64encode(bytes(range(32))).decode()
    other = "whsec_" + base64.b64encode(bytes(range(100, 132))).decode()
    body = json.dumps({"type": "order.completed", "timestamp": "2025-11-21T04:00:00.123Z", "data": json.loads(C1_BODY) | {"sandbox": False}}).encode()
    headers = {"webhook-id": "evt_01", "webhook-timestamp": TS, "webhook-signature": standard_signature(secret, "evt_01", TS, body)}
    assert sign_webhook(secret, "evt_01", TS, body) == headers["webhook-signature"]

    message = verify_webhook(body, headers, secret, now=lambda: at(TS, 10))
    assert (message.type, message.data.id, message.data.settled.value) == ("order.completed", "ord_abc", "16.34531590")
    # Header names in another case (as some frameworks give them) are the same headers.
    assert verify_webhook(body, {k.title(): v for k, v in headers.items()}, secret, now=lambda: at(TS)).data.id == "ord_abc"

    def refused(b: bytes, h: dict[str, str], s: str, now: float) -> str:
        with pytest.raises(PaygateError) as e:
            verify_webhook(b, h, s, now=lambda: now)
        assert e.value.status == 400
        return e.value.code

    assert refused(body.replace(b"16.34531590", b"16.34531591"), headers, secret, at(TS)) == "CALLBACK_SIGNATURE_MISMATCH"
    assert refused(body, headers, other, at(TS)) == "CALLBACK_SIGNATURE_MISMATCH"
    assert refused(body, headers, secret, at(TS, 3600)) == "CALLBACK_TIMESTAMP_STALE"
    assert refused(body, headers, secret, at(TS, -600)) == "CALLBACK_TIMESTAMP_STALE"
    assert refused(body, {**headers, "webhook-id": "evt_02"}, secret, at(TS)) == "CALLBACK_SIGNATURE_MISMATCH"
    assert refused(body, {"webhook-id": "evt_01", "webhook-timestamp": TS}, secret, at(TS)) == "CALLBACK_HEADERS_MISSING"
    assert refused(body, headers, "whsec_***", at(TS)) == "CALLBACK_SECRET_INVALID"

    # During a rotation both signatures arrive, separated by a space: either secret verifies.
    both = {**headers, "webhook-signature": f"{standard_signature(other, 'evt_01', TS, body)} {headers['webhook-signature']}"}
    assert verify_webhook(body, both, secret, now=lambda: at(TS)).data.id == "ord_abc"
    assert verify_webhook(body, both, other, now=lambda: at(TS)).data.id == "ord_abc"
    third = "whsec_" + base64.b64encode(b"x" * 24).decode()
    assert refused(body, both, third, at(TS)) == "CALLBACK_SIGNATURE_MISMATCH"


@pytest.mark.scenario("non-json-answer")
def test_a_proxy_html_page_is_an_error_with_its_status_and_start(fake: FakeGateway) -> None:
    page = "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1>" + "x" * 1000 + "</body></html>"
    fake.script = [Answer(502, page, {"Content-Type": "text/html"})]
    with pytest.raises(PaygateError) as e:
        client(fake).orders.create(CreateOrderRequest(amount="10.00"))
    assert (e.value.status, e.value.code) == (502, "HTTP_502")
    assert e.value.detail is not None and e.value.detail.startswith("<html><head><title>502 Bad Gateway")
    assert len(e.value.detail) == 300
    assert len(fake.seen) == 1

    # A 429 (empty body) is RATE_LIMITED with Retry-After in seconds, never retried.
    fake.seen.clear()
    fake.script = [Answer(429, "", {"Retry-After": "7"})]
    with pytest.raises(PaygateError) as e:
        client(fake).balance()
    assert (e.value.status, e.value.code, e.value.retry_after) == (429, "RATE_LIMITED", 7.0)
    assert len(fake.seen) == 1


@pytest.mark.scenario("timeout")
def test_a_server_that_never_answers_is_a_network_error_after_the_timeout(fake: FakeGateway) -> None:
    fake.script = [HANG]
    c = client(fake, timeout=0.5)
    started = time.monotonic()
    with pytest.raises(PaygateError) as e:
        c.orders.create(CreateOrderRequest(amount="10.00", currency="RUB"))
    elapsed = time.monotonic() - started
    assert (e.value.status, e.value.code) == (0, "NETWORK_ERROR")
    assert 0.4 < elapsed < 3
    assert len(fake.seen) == 1


@pytest.mark.scenario("retry-503")
def test_503_retried_only_when_idempotent_and_gets_after_a_dropped_connection(fake: FakeGateway) -> None:
    sleep = NoSleep()
    c = client(fake, sleep=sleep, random=lambda: 0.0, retry_base=0.5)
    fake.script = [fault(503, "NO_AVAILABLE_METHOD", "no provider"), ok(order_json(), 201)]
    created = c.orders.create(CreateOrderRequest(amount="1500.50", order_ref="inv-503"))
    assert created.id == "ord_1" and created.settled.amount == "16.34531590" and created.payment.phone == "+79000000000"
    assert len(fake.seen) == 2
    assert fake.seen[0].body == fake.seen[1].body
    assert fake.seen[0].headers["x-gate-nonce"] != fake.seen[1].headers["x-gate-nonce"]
    for s in fake.seen:
        assert s.headers["x-gate-sign"] == sign_request(SECRET, s.headers["x-gate-ts"], s.headers["x-gate-nonce"], "POST", "/gw/v1/orders", s.body)
    assert sleep.delays == [0.25]

    fake.seen.clear()
    fake.script = [fault(503, "NO_AVAILABLE_METHOD", "no provider"), ok(order_json(), 201)]
    with pytest.raises(PaygateError) as e:
        c.orders.create(CreateOrderRequest(amount="1500.50"))
    assert (e.value.status, e.value.code, e.value.detail, e.value.trace_id) == (503, "NO_AVAILABLE_METHOD", "no provider", "trace-fault")
    assert len(fake.seen) == 1

    # A GET whose connection drops is sent again; three attempts in all by default.
    fake.seen.clear()
    fake.script = [DROP, ok({"currency": "USD", "available": "12.50000000", "mode": "sandbox"})]
    assert c.balance().available == "12.50000000"
    assert len(fake.seen) == 2
    fake.seen.clear()
    fake.script = [DROP]
    with pytest.raises(PaygateError) as e:
        c.methods()
    assert (e.value.status, e.value.code) == (0, "NETWORK_ERROR")
    assert len(fake.seen) == 3
    # A cancel is not repeated after a dropped connection.
    fake.seen.clear()
    with pytest.raises(PaygateError):
        c.orders.cancel("ord_1", "customer left")
    assert len(fake.seen) == 1


def test_clock_skew_is_learnt_once_from_the_date_header(fake: FakeGateway) -> None:
    server_now = time.time()
    date = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(server_now))
    fake.script = [Answer(401, {"status": "error", "fault": {"code": "AUTH_TIMESTAMP_SKEW", "detail": None}, "traceId": "t"}, {"Date": date}), ok({"currency": "USD", "available": "0.00000000", "mode": "live"})]
    c = client(fake, now=lambda: time.time() - 600)
    assert c.balance().currency == "USD"
    first, second = (int(s.headers["x-gate-ts"]) for s in fake.seen)
    assert abs(first - (server_now - 600)) < 5 and abs(second - server_now) < 5


def test_requests_carry_exact_amounts_and_refuse_floats(fake: FakeGateway) -> None:
    fake.script = [ok(order_json(), 201)]
    c = client(fake)
    c.orders.create(CreateOrderRequest(amount="1500.50", currency="RUB", notify_url="https://shop.example/cb", lifetime_minutes=30))
    assert fake.seen[0].body == b'{"amount":1500.50,"currency":"RUB","notifyUrl":"https://shop.example/cb","lifetimeMinutes":30}'
    with pytest.raises(TypeError):
        c.orders.create(CreateOrderRequest(amount=1500.5))  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        c.orders.create(CreateOrderRequest(amount="15OO"))
    assert len(fake.seen) == 1
    assert "sk_test" not in repr(c)


def test_order_reads_appeals_and_events_feed_paths(fake: FakeGateway) -> None:
    c = client(fake)
    full = order_json(
        status="Canceled", subStatus="Cancelled", payerReference=None, commission={"rate": "0.0000", "amount": "0.00000000", "currency": "USD"},
        credited={"amount": "0.00000000", "currency": "USD"}, cancelReason="left", finishedAt="2026-01-15T12:01:00Z", description=None, paidAmount=None,
        orderRef="inv/1 2", somethingNew="ignored",
    )
    fake.script = [ok(full), ok(full)]
    order = c.orders.get("inv/1 2")
    assert fake.seen[-1].path == "/gw/v1/orders/inv%2F1%202"
    assert (order.order_ref, order.sub_status, order.credited.amount, order.cancel_reason) == ("inv/1 2", "Cancelled", "0.00000000", "left")
    c.orders.cancel("ord_1")
    assert (fake.seen[-1].method, fake.seen[-1].path, fake.seen[-1].body) == ("POST", "/gw/v1/orders/ord_1/cancel", b"{}")

    appeal = {"id": "apl_1", "orderId": "ord_1", "orderRef": None, "status": "Open", "amount": {"value": "16.34531590", "currency": "USD"}, "reason": "paid", "comment": None,
              "slaDueAt": "2026-01-16T12:00:00Z", "createdAt": "2026-01-15T12:00:00Z", "resolvedAt": None, "evidenceUrl": None}
    fake.script = [ok(appeal, 201), ok(appeal)]
    assert c.appeals.create(OpenAppealRequest(order_id="ord_1", reason="paid")).amount.value == "16.34531590"
    assert fake.seen[-1].body == b'{"orderId":"ord_1","reason":"paid"}'
    assert c.appeals.get("apl_1").sla_due_at == "2026-01-16T12:00:00Z"

    def event(i: int) -> dict[str, object]:
        return {"id": f"evt_{i}", "event": "order.cancelled", "orderId": "ord_1", "createdAt": "2026-01-15T12:00:00Z", "body": "{}",
                "delivery": {"state": "delivered", "attempts": 1, "nextAttemptAt": None, "finishedAt": None}}

    fake.seen.clear()
    fake.script = [ok({"events": [event(1), event(2)], "hasMore": True, "next": "evt_2"}), ok({"events": [event(3)], "hasMore": False, "next": None})]
    assert [e.id for e in c.events(limit=2, delivered=False)] == ["evt_1", "evt_2", "evt_3"]
    assert [s.path for s in fake.seen] == ["/gw/v1/events?delivered=false&limit=2", "/gw/v1/events?after=evt_2&delivered=false&limit=2"]


def test_webhook_endpoint_calls_follow_the_contract(fake: FakeGateway) -> None:
    c = client(fake)
    endpoint = {"id": "whe_1", "url": "https://erp.example/hooks", "events": ["*"], "desks": None, "description": "ERP", "enabled": True,
                "disabledReason": None, "createdAt": "2026-01-15T12:00:00Z", "updatedAt": "2026-01-15T12:00:00Z"}
    attempt = {"id": "wha_1", "eventId": "evt_1", "type": "order.completed", "attempt": 1, "at": "2026-01-15T12:00:05Z", "outcome": "delivered",
               "statusCode": 200, "durationMs": 12, "error": None, "nextAttemptAt": None}
    fake.script = [
        ok(endpoint | {"secret": "whsec_" + base64.b64encode(b"k" * 24).decode()}, 201),
        ok({"endpoints": [endpoint]}),
        ok(endpoint),
        ok(endpoint | {"enabled": False, "disabledReason": "by the merchant"}),
        ok({"secret": "whsec_" + base64.b64encode(b"n" * 24).decode()}),
        ok({"requeued": 3, "since": "2026-01-15T11:00:00Z"}),
        ok({"eventId": "evt_test"}, 202),
        ok({"attempts": [attempt], "hasMore": False, "next": None}),
    ]
    created = c.webhook_endpoints.create(CreateWebhookEndpointRequest(url="https://erp.example/hooks", events=["*"], description="ERP"))
    assert created.secret.startswith("whsec_") and created.id == "whe_1"
    assert [e.id for e in c.webhook_endpoints.list()] == ["whe_1"]
    assert c.webhook_endpoints.get("whe_1").url == "https://erp.example/hooks"
    disabled = c.webhook_endpoints.update("whe_1", UpdateWebhookEndpointRequest(enabled=False))
    assert (disabled.enabled, disabled.disabled_reason) == (False, "by the merchant")
    assert c.webhook_endpoints.rotate_secret("whe_1").secret.startswith("whsec_")
    assert c.webhook_endpoints.recover("whe_1", "2026-01-15T11:00:00Z").requeued == 3
    assert c.webhook_endpoints.send_test_event("whe_1").event_id == "evt_test"
    page = c.webhook_endpoints.attempts("whe_1", limit=10)
    assert (page.attempts[0].status_code, page.attempts[0].outcome, page.has_more) == (200, "delivered", False)
    assert [(s.method, s.path, s.body) for s in fake.seen] == [
        ("POST", "/gw/v1/webhook-endpoints", b'{"url":"https://erp.example/hooks","events":["*"],"description":"ERP"}'),
        ("GET", "/gw/v1/webhook-endpoints", b""),
        ("GET", "/gw/v1/webhook-endpoints/whe_1", b""),
        ("PATCH", "/gw/v1/webhook-endpoints/whe_1", b'{"enabled":false}'),
        ("POST", "/gw/v1/webhook-endpoints/whe_1/rotate-secret", b""),
        ("POST", "/gw/v1/webhook-endpoints/whe_1/recover", b'{"since":"2026-01-15T11:00:00Z"}'),
        ("POST", "/gw/v1/webhook-endpoints/whe_1/test", b""),
        ("GET", "/gw/v1/webhook-endpoints/whe_1/attempts?limit=10", b""),
    ]
    patch = fake.seen[3]
    assert patch.headers["x-gate-sign"] == sign_request(SECRET, patch.headers["x-gate-ts"], patch.headers["x-gate-nonce"], "PATCH", "/gw/v1/webhook-endpoints/whe_1", patch.body)


def test_readme_examples_are_python() -> None:
    readme = (pathlib.Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert len(blocks) >= 6
    for block in blocks:
        # Snippets may return from the handler they stand for.
        ast.parse("def handler(self):\n" + "".join(f"    {line}\n" for line in block.splitlines()))
