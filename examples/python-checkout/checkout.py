"""A tiny checkout on the standard library's http.server, paid through Paygate.

    PAYGATE_URL=http://127.0.0.1:8080 PAYGATE_KEY=shp_… PAYGATE_SECRET=… [PAYGATE_RAIL=Sbp] python3 examples/python-checkout/checkout.py

GET /            a form: amount in RUB
POST /checkout   creates the shop's order and a gateway order (orderRef = the shop's reference),
                 then sends the customer to the gateway's payment page
POST /paygate/callback
                 the gateway's signed callback: verified over the raw body, then the shop's order
                 is marked paid (each event applied once, by X-Gate-Event-Id)
GET /orders/<ref>  the shop's order as JSON
"""

from __future__ import annotations

import html
import json
import os
import secrets
import sys
import threading
import urllib.parse
from dataclasses import asdict, dataclass, field
from decimal import Decimal, InvalidOperation
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

try:
    import paygate
except ImportError:  # run from the repository without installing the SDK
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "packages", "sdk-python", "src"))
    import paygate

from paygate import CreateOrderRequest, Paygate, PaygateError, verify_callback


@dataclass
class ShopOrder:
    ref: str
    amount: str
    status: str = "new"  # new → awaiting_payment → paid (or cancelled)
    gateway_id: str | None = None
    payment_url: str | None = None
    events: list[str] = field(default_factory=list)


class Shop:
    def __init__(self, gateway_url: str, key: str, secret: str, rail: str | None = None) -> None:
        self.gateway_url = gateway_url.rstrip("/")
        # Needed when the desk allows several rails (e.g. Sbp and C2c); None when it allows one.
        self.rail = rail
        self.secret = secret
        self.client = Paygate(self.gateway_url, key, secret, timeout=60)
        self.orders: dict[str, ShopOrder] = {}
        self.lock = threading.Lock()
        self.public_url = ""

    def checkout(self, amount: Decimal) -> ShopOrder:
        order = ShopOrder(ref=f"shop-{secrets.token_hex(6)}", amount=f"{amount:.2f}")
        with self.lock:
            self.orders[order.ref] = order
        created = self.client.orders.create(
            CreateOrderRequest(
                amount=amount,
                currency="RUB",
                rail=self.rail,
                order_ref=order.ref,
                notify_url=f"{self.public_url}/paygate/callback",
                success_url=f"{self.public_url}/orders/{order.ref}",
                fail_url=f"{self.public_url}/",
            )
        )
        order.gateway_id = created.id
        order.payment_url = created.pay_page_url or f"{self.gateway_url}/pay/{created.id}"
        order.status = "awaiting_payment"
        return order

    def callback(self, raw_body: bytes, headers: Any) -> None:
        event = verify_callback(raw_body, headers, self.secret)
        event_id = headers.get("X-Gate-Event-Id")
        with self.lock:
            order = self.orders.get(event.order_ref or "")
            if order is None or event_id in order.events:
                return  # not ours, or a repeat of an event already applied: answer 200 all the same
            order.events.append(event_id)
            if event.status == "Completed":
                order.status = "paid"
            elif event.status == "Canceled" and order.status != "paid":
                order.status = "cancelled"


FORM = """<!doctype html><meta charset="utf-8"><title>Python checkout</title>
<h1>Python checkout</h1>
<form method="post" action="/checkout"><label>Amount, RUB <input name="amount" value="918.00"></label> <button>Pay</button></form>"""


def make_handler(shop: Shop) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

        def _send(self, status: int, body: str, content_type: str = "text/plain; charset=utf-8", headers: dict[str, str] | None = None) -> None:
            data = body.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def _body(self) -> bytes:
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))

        def do_GET(self) -> None:
            path = urllib.parse.urlsplit(self.path).path
            if path == "/":
                return self._send(200, FORM, "text/html; charset=utf-8")
            if path.startswith("/orders/"):
                order = shop.orders.get(urllib.parse.unquote(path[len("/orders/") :]))
                if order is None:
                    return self._send(404, "no such order")
                return self._send(200, json.dumps(asdict(order)), "application/json")
            self._send(404, "not found")

        def do_POST(self) -> None:
            path = urllib.parse.urlsplit(self.path).path
            if path == "/checkout":
                form = urllib.parse.parse_qs(self._body().decode("utf-8"))
                try:
                    amount = Decimal(form.get("amount", [""])[0])
                except InvalidOperation:
                    return self._send(400, "amount must be a number")
                if not amount.is_finite() or amount <= 0:
                    return self._send(400, "amount must be a number above zero")
                try:
                    order = shop.checkout(amount)
                except PaygateError as e:
                    return self._send(502, f"the payment could not be started: {e.code} (trace {e.trace_id})")
                return self._send(303, f"pay at {order.payment_url}", headers={"Location": order.payment_url or "/"})
            if path == "/paygate/callback":
                # The raw bytes, exactly as received: the signature covers them.
                raw = self._body()
                try:
                    shop.callback(raw, self.headers)
                except PaygateError as e:
                    return self._send(400, e.code)
                return self._send(200, "ok")
            self._send(404, "not found")

    return Handler


def main() -> None:
    gateway_url = os.environ.get("PAYGATE_URL", "http://127.0.0.1:8080")
    key = os.environ.get("PAYGATE_KEY")
    secret = os.environ.get("PAYGATE_SECRET")
    if not key or not secret:
        sys.exit("set PAYGATE_KEY and PAYGATE_SECRET (the cash desk's key and secret)")
    shop = Shop(gateway_url, key, secret, os.environ.get("PAYGATE_RAIL") or None)
    server = ThreadingHTTPServer((os.environ.get("HOST", "127.0.0.1"), int(os.environ.get("PORT", "8000"))), make_handler(shop))
    host, port = server.server_address[:2]
    shop.public_url = os.environ.get("PUBLIC_URL", f"http://{host}:{port}").rstrip("/")
    print(f"python checkout on {shop.public_url}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
