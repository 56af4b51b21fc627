"""Scenarios against a real Paygate (PAYGATE_URL, PAYGATE_KEY, PAYGATE_SECRET of a sandbox Classic desk;
PAYGATE_CALLBACK_HOST: where the gateway reaches this machine, 127.0.0.1 by default). Skipped when no
gateway is named."""

from __future__ import annotations

import json
import secrets
import threading
import time
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from conftest import Live, Proxy, eventually

from paygate import (
    Appeal,
    Balance,
    CreateOrderRequest,
    CreateWebhookEndpointRequest,
    Methods,
    OpenAppealRequest,
    Order,
    OrderCreated,
    Paygate,
    PaygateError,
    Rates,
    UpdateWebhookEndpointRequest,
    verify_webhook,
)

pytestmark = pytest.mark.live


def gw(live: Live, url: str | None = None, **kw: Any) -> Paygate:
    return Paygate(url or live.url, live.key, live.secret, timeout=30, **kw)


def ref(prefix: str) -> str:
    return f"{prefix}-{secrets.token_hex(6)}"


@pytest.mark.scenario("create-read-cancel-order")
def test_create_read_by_id_and_ref_cancel(live: Live) -> None:
    c = gw(live)
    order_ref = ref("py-crc")
    created = c.orders.create(CreateOrderRequest(amount=Decimal("1500.50"), currency="RUB", rail="Sbp", order_ref=order_ref))
    assert isinstance(created, OrderCreated)
    assert created.id.startswith("ord_") and created.order_ref is None
    assert (created.amount, created.currency, created.status, created.direction) == ("1500.50", "RUB", "Created", "In")
    assert Decimal(created.settled.amount) > 0 and created.settled.currency == "USD"
    by_id = c.orders.get(created.id)
    by_ref = c.orders.get(order_ref)
    assert isinstance(by_id, Order) and by_id == by_ref
    assert (by_id.order_ref, by_id.sub_status, by_id.settled, by_id.payment) == (order_ref, "WaitingForPayment", created.settled, created.payment)
    assert by_id.credited.amount == "0.00000000" and by_id.commission.currency == "USD"
    cancelled = c.orders.cancel(created.id, "customer left")
    assert cancelled.status == "Canceled"
    after = c.orders.get(created.id)
    assert (after.status, after.cancel_reason) == ("Canceled", "customer left")
    assert after.finished_at is not None


@pytest.mark.scenario("create-is-idempotent")
def test_same_ref_same_order_and_conflict_is_an_error(live: Live) -> None:
    c = gw(live)
    order_ref = ref("py-idem")
    first = c.orders.create(CreateOrderRequest(amount="918.00", currency="RUB", rail="Sbp", order_ref=order_ref))
    again = c.orders.create(CreateOrderRequest(amount="918.00", currency="RUB", rail="Sbp", order_ref=order_ref))
    assert again.id == first.id
    with pytest.raises(PaygateError) as e:
        c.orders.create(CreateOrderRequest(amount="919.00", currency="RUB", rail="Sbp", order_ref=order_ref))
    assert (e.value.status, e.value.code) == (409, "ORDER_REF_CONFLICT")
    assert e.value.detail and e.value.trace_id
    c.orders.cancel(first.id)


@pytest.mark.scenario("reads")
def test_methods_rates_balance(live: Live) -> None:
    c = gw(live)
    methods = c.methods()
    assert isinstance(methods, Methods)
    assert methods.method == "Classic" and methods.available is True and methods.reason is None
    assert {r.rail for r in methods.rails} >= {"Sbp"}
    assert all(w.code == "RUB" for r in methods.rails for w in r.currencies)
    rates = c.rates("RUB")
    assert isinstance(rates, Rates) and rates.settlement == "USD"
    (rub,) = rates.rates
    assert rub.code == "RUB" and rub.priceable is True and rub.rate is not None and Decimal(rub.rate) > 0
    balance = c.balance()
    assert isinstance(balance, Balance) and balance.currency == "USD" and balance.mode == "sandbox"
    assert len(balance.available.split(".")[1]) == 8


@pytest.mark.scenario("events-feed")
def test_events_feed_pages_to_the_end(live: Live) -> None:
    c = gw(live)
    ids = []
    for _ in range(3):
        o = c.orders.create(CreateOrderRequest(amount="100.00", rail="Sbp", order_ref=ref("py-feed")))
        c.orders.cancel(o.id)
        ids.append(o.id)
    first = c.events_page(limit=2)
    assert len(first.events) == 2 and first.has_more and first.next == first.events[-1].id
    events = list(c.events(limit=2))
    assert [e.id for e in events[:2]] == [e.id for e in first.events]
    assert len({e.id for e in events}) == len(events)
    mine = [e for e in events if e.order_id in ids]
    assert {e.order_id for e in mine} == set(ids)
    for e in mine:
        assert e.event == "order.cancelled"
        assert json.loads(e.body)["id"] == e.order_id
    # Only one order's events, through the same cursor.
    assert [e.order_id for e in c.events(order_id=ids[0])] == [ids[0]]


@pytest.mark.scenario("appeals")
def test_appeal_on_a_closed_order_and_on_an_unknown_one(live: Live) -> None:
    c = gw(live)
    o = c.orders.create(CreateOrderRequest(amount="250.00", rail="Sbp", order_ref=ref("py-apl")))
    c.orders.cancel(o.id, "expired at the till")
    appeal = c.appeals.create(OpenAppealRequest(order_id=o.id, reason="customer paid", evidence_url="https://shop.example/receipt/1"))
    assert isinstance(appeal, Appeal)
    assert appeal.id.startswith("apl_") and appeal.order_id == o.id and appeal.status == "Open"
    assert appeal.amount.currency == "USD" and appeal.amount.value == o.settled.amount
    assert (appeal.reason, appeal.evidence_url, appeal.resolved_at) == ("customer paid", "https://shop.example/receipt/1", None)
    assert c.appeals.get(appeal.id) == appeal
    assert c.orders.get(o.id).status == "Dispute"
    with pytest.raises(PaygateError) as e:
        c.appeals.create(OpenAppealRequest(order_id="ord_doesnotexist0000000000000"))
    assert (e.value.status, e.value.code) == (404, "ORDER_NOT_FOUND")
    assert e.value.trace_id


@pytest.mark.scenario("wrong-secret")
def test_wrong_secret_is_auth_failed_after_one_request(live: Live) -> None:
    proxy = Proxy(live.url)
    try:
        c = Paygate(proxy.url, live.key, live.secret + "x", timeout=30)
        with pytest.raises(PaygateError) as e:
            c.balance()
        assert (e.value.status, e.value.code) == (401, "AUTH_FAILED")
        assert e.value.trace_id
        assert proxy.count == 1
    finally:
        proxy.close()


@pytest.mark.scenario("clock-off")
def test_a_client_ten_minutes_off_learns_the_clock_once(live: Live) -> None:
    proxy = Proxy(live.url)
    try:
        c = Paygate(proxy.url, live.key, live.secret, timeout=30, now=lambda: time.time() - 600)
        assert c.balance().currency == "USD"
        assert proxy.count == 2
        assert c.methods().method == "Classic"
        assert proxy.count == 3
    finally:
        proxy.close()


@pytest.mark.scenario("body-modified-after-signing")
def test_a_body_changed_after_signing_is_auth_failed(live: Live) -> None:
    proxy = Proxy(live.url, rewrite=lambda b: b.replace(b'"amount":100.00', b'"amount":1.00'))
    try:
        c = Paygate(proxy.url, live.key, live.secret, timeout=30)
        with pytest.raises(PaygateError) as e:
            c.orders.create(CreateOrderRequest(amount="100.00", rail="Sbp", order_ref=ref("py-mod")))
        assert (e.value.status, e.value.code) == (401, "AUTH_FAILED")
        assert proxy.count == 1
    finally:
        proxy.close()


class Receiver:
    """A webhook receiver the gateway delivers to; answers 200 and keeps what it got."""

    def __init__(self) -> None:
        self.got: list[tuple[dict[str, str], bytes]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                receiver.got.append(({k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.scenario("webhook-endpoints")
def test_webhook_endpoints_lifecycle_and_a_verified_delivery(live: Live) -> None:
    c = gw(live)
    receiver = Receiver()
    try:
        url = f"http://{live.callback_host}:{receiver.port}/hooks"
        created = c.webhook_endpoints.create(CreateWebhookEndpointRequest(url=url, events=["*"], description="python tests"))
        assert created.id.startswith("whe_") and created.secret.startswith("whsec_")
        assert (created.url, created.events, created.enabled) == (url, ["*"], True)
        listed = {e.id: e for e in c.webhook_endpoints.list()}
        assert created.id in listed
        # The secret is in the creation answer only: not in the list's or the read's JSON.
        raw_list = c._call("GET", "/gw/v1/webhook-endpoints", retry="network")
        raw_one = c._call("GET", f"/gw/v1/webhook-endpoints/{created.id}", retry="network")
        assert all("secret" not in e for e in raw_list["endpoints"]) and "secret" not in raw_one
        read = c.webhook_endpoints.get(created.id)
        assert (read.url, read.description) == (url, "python tests")
        updated = c.webhook_endpoints.update(created.id, UpdateWebhookEndpointRequest(description="python tests, renamed"))
        assert updated.description == "python tests, renamed"
        rotated = c.webhook_endpoints.rotate_secret(created.id)
        assert rotated.secret.startswith("whsec_") and rotated.secret != created.secret
        recovery = c.webhook_endpoints.recover(created.id, datetime.now(timezone.utc) - timedelta(hours=1))
        assert recovery.requeued >= 0 and recovery.since.endswith("Z")

        o = c.orders.create(CreateOrderRequest(amount="300.00", rail="Sbp", order_ref=ref("py-whe")))
        c.orders.cancel(o.id)

        def delivery() -> Any:
            for headers, body in receiver.got:
                if json.loads(body).get("data", {}).get("id") == o.id:
                    return headers, body
            return None

        headers, body = eventually(delivery, 90, "a webhook delivery of the cancelled order")
        # During the rotation both secrets verify the same delivery.
        for secret in (rotated.secret, created.secret):
            message = verify_webhook(body, headers, secret)
            assert (message.type, message.data.id, message.data.status) == ("order.cancelled", o.id, "Canceled")
        page = eventually(lambda: c.webhook_endpoints.attempts(created.id, limit=50).attempts, 30, "attempts listed")
        assert any(a.status_code == 200 for a in page)
    finally:
        receiver.close()
