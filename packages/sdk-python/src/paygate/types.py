"""Typed requests and answers of the gateway API (``/gw/v1``).

Each class names the schema of the gateway's OpenAPI document it mirrors in ``__schema__`` (an
inline object is ``Parent.field``); attributes are snake_case, the JSON key of each is in the
field's metadata. The cross-SDK check compares these with the document by introspection.

Money is a decimal string everywhere (order amounts 2 places, USD amounts and rates 8, commission
rate 4): use ``decimal.Decimal(order.amount)`` for arithmetic, never ``float``.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import ClassVar, Literal

from ._wire import wire

__all__ = [
    "Appeal",
    "AppealAmount",
    "AppealStatus",
    "Balance",
    "CallbackAmount",
    "CallbackEvent",
    "CallbackPaidAmount",
    "CallbackSettlement",
    "CancelOrderRequest",
    "Commission",
    "CreateOrderRequest",
    "CreateWebhookEndpointRequest",
    "Credited",
    "CurrencyWindow",
    "Event",
    "EventDelivery",
    "EventKind",
    "EventsPage",
    "MethodRail",
    "Methods",
    "OpenAppealRequest",
    "Operator",
    "Order",
    "OrderCreated",
    "OrderStatus",
    "OrderSubStatus",
    "PaymentDetails",
    "Rate",
    "Rates",
    "RecoverWebhookRequest",
    "Settlement",
    "UpdateWebhookEndpointRequest",
    "WebhookAttempt",
    "WebhookAttemptsPage",
    "WebhookEndpoint",
    "WebhookEndpointCreated",
    "WebhookEndpointList",
    "WebhookMessage",
    "WebhookRecovery",
    "WebhookSecret",
    "WebhookTestEvent",
]

OrderStatus = Literal["Created", "Payed", "Completed", "Canceled", "Dispute", "CompletedOnDispute", "WaitingPayment"]
OrderSubStatus = Literal["WaitingForPayment", "WaitingAdminConfirmation", "SuccessfullyPaid", "Cancelled", "Expired"]
AppealStatus = Literal["Open", "Accepted", "Rejected", "Cancelled"]
EventKind = Literal["order.completed", "order.cancelled", "order.appealed", "order.updated"]
Operator = Literal["OperatorA", "OperatorB", "OperatorC", "OperatorD", "OperatorE"]


# ---- orders -------------------------------------------------------------------------------


@dataclass(kw_only=True)
class CreateOrderRequest:
    """Body of ``POST /gw/v1/orders``. With an ``order_ref`` the call is idempotent for an hour,
    so the client may safely repeat it.

    ``amount`` is exact: a ``Decimal``, a decimal string (``"1500.50"``) or an ``int``; it is sent
    as a JSON number with exactly those digits. A ``float`` is refused.
    """

    __schema__: ClassVar[str] = "CreateOrderRequest"
    amount: Decimal | str | int = wire("amount")
    currency: str | None = wire("currency", default=None)
    rail: str | None = wire("rail", default=None)
    direction: Literal["In", "Out"] | None = wire("direction", default=None)
    order_ref: str | None = wire("orderRef", default=None)
    notify_url: str | None = wire("notifyUrl", default=None)
    success_url: str | None = wire("successUrl", default=None)
    fail_url: str | None = wire("failUrl", default=None)
    back_url: str | None = wire("backUrl", default=None)
    operator: Operator | None = wire("operator", default=None)
    target_bank: str | None = wire("targetBank", default=None)
    lifetime_minutes: int | None = wire("lifetimeMinutes", default=None)


@dataclass(kw_only=True)
class Settlement:
    """USD side of an order, captured at creation."""

    __schema__: ClassVar[str] = "Settlement"
    amount: str = wire("amount")
    currency: str = wire("currency")
    rate: str = wire("rate")


@dataclass(kw_only=True)
class PaymentDetails:
    """Where the customer pays; every key is present, the ones the rail does not use are None."""

    __schema__: ClassVar[str] = "PaymentDetails"
    url: str | None = wire("url")
    card: str | None = wire("card")
    phone: str | None = wire("phone")
    account: str | None = wire("account")
    iban: str | None = wire("iban")
    upi_id: str | None = wire("upiId")
    holder: str | None = wire("holder")
    bank: str | None = wire("bank")


@dataclass(kw_only=True)
class OrderCreated:
    """``result`` of ``POST /gw/v1/orders`` (201); ``order_ref`` is always None here."""

    __schema__: ClassVar[str] = "OrderCreated"
    id: str = wire("id")
    order_ref: str | None = wire("orderRef")
    amount: str = wire("amount")
    currency: str = wire("currency")
    settled: Settlement = wire("settled")
    method: str = wire("method")
    rail: str | None = wire("rail")
    direction: str = wire("direction")
    status: OrderStatus = wire("status")
    payment: PaymentDetails = wire("payment")
    created_at: str = wire("createdAt")
    expires_at: str = wire("expiresAt")
    sandbox: bool = wire("sandbox")
    pay_page_url: str = wire("payPageUrl")


@dataclass(kw_only=True)
class Commission:
    __schema__: ClassVar[str] = "Commission"
    rate: str = wire("rate")
    amount: str = wire("amount")
    currency: str = wire("currency")


@dataclass(kw_only=True)
class Credited:
    __schema__: ClassVar[str] = "Credited"
    amount: str = wire("amount")
    currency: str = wire("currency")


@dataclass(kw_only=True)
class Order(OrderCreated):
    """``result`` of ``GET /gw/v1/orders/{id}`` and of a cancel: the order as it now stands."""

    __schema__: ClassVar[str] = "Order"
    sub_status: OrderSubStatus = wire("subStatus")
    payer_reference: str | None = wire("payerReference")
    commission: Commission = wire("commission")
    credited: Credited = wire("credited")
    cancel_reason: str | None = wire("cancelReason")
    finished_at: str | None = wire("finishedAt")
    description: str | None = wire("description")
    paid_amount: str | None = wire("paidAmount")


@dataclass(kw_only=True)
class CancelOrderRequest:
    """Body of ``POST /gw/v1/orders/{id}/cancel``."""

    __schema__: ClassVar[str] = "CancelOrderRequest"
    reason: str | None = wire("reason", default=None)


# ---- appeals ------------------------------------------------------------------------------


@dataclass(kw_only=True)
class OpenAppealRequest:
    """Body of ``POST /gw/v1/appeals``; ``order_id`` is the ``ord_`` id or the ``orderRef``."""

    __schema__: ClassVar[str] = "OpenAppealRequest"
    order_id: str = wire("orderId")
    reason: str | None = wire("reason", default=None)
    evidence_url: str | None = wire("evidenceUrl", default=None)


@dataclass(kw_only=True)
class AppealAmount:
    __schema__: ClassVar[str] = "Appeal.amount"
    value: str = wire("value")
    currency: str = wire("currency")


@dataclass(kw_only=True)
class Appeal:
    """``result`` of ``POST /gw/v1/appeals`` and ``GET /gw/v1/appeals/{id}``."""

    __schema__: ClassVar[str] = "Appeal"
    id: str = wire("id")
    order_id: str = wire("orderId")
    order_ref: str | None = wire("orderRef")
    status: AppealStatus = wire("status")
    amount: AppealAmount = wire("amount")
    reason: str | None = wire("reason")
    comment: str | None = wire("comment")
    sla_due_at: str = wire("slaDueAt")
    created_at: str = wire("createdAt")
    resolved_at: str | None = wire("resolvedAt")
    evidence_url: str | None = wire("evidenceUrl")


# ---- reads --------------------------------------------------------------------------------


@dataclass(kw_only=True)
class CurrencyWindow:
    """Widest window a provider offers, in the customer currency; 0 means unbounded."""

    __schema__: ClassVar[str] = "CurrencyWindow"
    code: str = wire("code")
    min: float = wire("min")
    max: float = wire("max")


@dataclass(kw_only=True)
class MethodRail:
    __schema__: ClassVar[str] = "MethodRail"
    rail: str | None = wire("rail")
    currencies: list[CurrencyWindow] = wire("currencies")


@dataclass(kw_only=True)
class Methods:
    """``result`` of ``GET /gw/v1/methods``."""

    __schema__: ClassVar[str] = "Methods"
    method: str = wire("method")
    available: bool = wire("available")
    reason: str | None = wire("reason")
    rails: list[MethodRail] = wire("rails")


@dataclass(kw_only=True)
class Rate:
    __schema__: ClassVar[str] = "Rate"
    code: str = wire("code")
    rate: str | None = wire("rate")
    priceable: bool = wire("priceable")


@dataclass(kw_only=True)
class Rates:
    """``result`` of ``GET /gw/v1/rates``."""

    __schema__: ClassVar[str] = "Rates"
    settlement: str = wire("settlement")
    rates: list[Rate] = wire("rates")


@dataclass(kw_only=True)
class Balance:
    """``result`` of ``GET /gw/v1/balance``; ``mode`` is ``sandbox`` for simulated money."""

    __schema__: ClassVar[str] = "Balance"
    currency: str = wire("currency")
    available: str = wire("available")
    mode: Literal["live", "sandbox"] = wire("mode")


# ---- events -------------------------------------------------------------------------------


@dataclass(kw_only=True)
class CallbackAmount:
    __schema__: ClassVar[str] = "CallbackEvent.amount"
    value: str = wire("value")
    currency: str = wire("currency")


@dataclass(kw_only=True)
class CallbackSettlement:
    __schema__: ClassVar[str] = "CallbackEvent.settled"
    value: str = wire("value")
    currency: str = wire("currency")
    rate: str = wire("rate")


@dataclass(kw_only=True)
class CallbackPaidAmount:
    __schema__: ClassVar[str] = "CallbackEvent.paidAmount"
    value: str = wire("value")
    currency: str = wire("currency")


@dataclass(kw_only=True)
class CallbackEvent:
    """The JSON body of a callback (and of a feed entry's ``body``, and a webhook's ``data``)."""

    __schema__: ClassVar[str] = "CallbackEvent"
    event: EventKind = wire("event")
    id: str = wire("id")
    order_ref: str | None = wire("orderRef")
    status: OrderStatus = wire("status")
    amount: CallbackAmount = wire("amount")
    settled: CallbackSettlement = wire("settled")
    paid_amount: CallbackPaidAmount | None = wire("paidAmount", default=None)
    method: str = wire("method")
    rail: str | None = wire("rail")
    occurred_at: str = wire("occurredAt")
    sandbox: bool = wire("sandbox")


@dataclass(kw_only=True)
class EventDelivery:
    __schema__: ClassVar[str] = "EventDelivery"
    state: str = wire("state")
    attempts: int = wire("attempts")
    next_attempt_at: str | None = wire("nextAttemptAt")
    finished_at: str | None = wire("finishedAt")


@dataclass(kw_only=True)
class Event:
    """One entry of the events feed; ``body`` is the exact string signed and sent as the callback."""

    __schema__: ClassVar[str] = "Event"
    id: str = wire("id")
    event: str = wire("event")
    order_id: str = wire("orderId")
    created_at: str = wire("createdAt")
    body: str = wire("body")
    delivery: EventDelivery = wire("delivery")


@dataclass(kw_only=True)
class EventsPage:
    """``result`` of ``GET /gw/v1/events``: follow ``next`` while ``has_more``."""

    __schema__: ClassVar[str] = "EventsPage"
    events: list[Event] = wire("events")
    has_more: bool = wire("hasMore")
    next: str | None = wire("next")


# ---- webhook endpoints (Standard Webhooks) -----------------------------------------------


@dataclass(kw_only=True)
class CreateWebhookEndpointRequest:
    """Body of ``POST /gw/v1/webhook-endpoints``: ``events`` kinds or ``["*"]``; ``desks`` None = every desk."""

    __schema__: ClassVar[str] = "CreateWebhookEndpointRequest"
    url: str = wire("url")
    events: list[str] = wire("events")
    description: str | None = wire("description", default=None)
    desks: list[str] | None = wire("desks", default=None)
    enabled: bool | None = wire("enabled", default=None)


@dataclass(kw_only=True)
class UpdateWebhookEndpointRequest:
    """Body of ``PATCH /gw/v1/webhook-endpoints/{id}``: only the fields given change."""

    __schema__: ClassVar[str] = "UpdateWebhookEndpointRequest"
    url: str | None = wire("url", default=None)
    events: list[str] | None = wire("events", default=None)
    description: str | None = wire("description", default=None)
    desks: list[str] | None = wire("desks", default=None)
    enabled: bool | None = wire("enabled", default=None)


@dataclass(kw_only=True)
class WebhookEndpoint:
    """A webhook endpoint as listed and read (never with its secret)."""

    __schema__: ClassVar[str] = "WebhookEndpoint"
    id: str = wire("id")
    url: str = wire("url")
    events: list[str] = wire("events")
    desks: list[str] | None = wire("desks")
    description: str | None = wire("description")
    enabled: bool = wire("enabled")
    disabled_reason: str | None = wire("disabledReason")
    created_at: str = wire("createdAt")
    updated_at: str = wire("updatedAt")


@dataclass(kw_only=True)
class WebhookEndpointCreated(WebhookEndpoint):
    """The creation answer: the only time ``secret`` (``whsec_…``) is shown."""

    __schema__: ClassVar[str] = "WebhookEndpointCreated"
    secret: str = wire("secret")


@dataclass(kw_only=True)
class WebhookEndpointList:
    """Answer of the list: the merchant's endpoints, oldest first."""

    __schema__: ClassVar[str] = "WebhookEndpointList"
    endpoints: list[WebhookEndpoint] = wire("endpoints")


@dataclass(kw_only=True)
class WebhookSecret:
    """Answer of rotate-secret; the old secret keeps signing beside it for 24 hours."""

    __schema__: ClassVar[str] = "WebhookSecret"
    secret: str = wire("secret")


@dataclass(kw_only=True)
class RecoverWebhookRequest:
    """Body of ``POST /gw/v1/webhook-endpoints/{id}/recover``: ISO 8601, at most 30 days ago."""

    __schema__: ClassVar[str] = "RecoverWebhookRequest"
    since: str = wire("since")


@dataclass(kw_only=True)
class WebhookRecovery:
    """How many events were queued again, since when."""

    __schema__: ClassVar[str] = "WebhookRecovery"
    requeued: int = wire("requeued")
    since: str = wire("since")


@dataclass(kw_only=True)
class WebhookTestEvent:
    """A ``webhook.test`` delivery queued to an endpoint: its ``webhook-id``."""

    __schema__: ClassVar[str] = "WebhookTestEvent"
    event_id: str = wire("eventId")


@dataclass(kw_only=True)
class WebhookAttempt:
    """One delivery attempt to an endpoint: its outcome, the HTTP status answered and how long it took."""

    __schema__: ClassVar[str] = "WebhookAttempt"
    id: str = wire("id")
    event_id: str = wire("eventId")
    type: str = wire("type")
    attempt: int = wire("attempt")
    at: str = wire("at")
    outcome: str = wire("outcome")
    status_code: int | None = wire("statusCode")
    duration_ms: int | None = wire("durationMs")
    error: str | None = wire("error")
    next_attempt_at: str | None = wire("nextAttemptAt")


@dataclass(kw_only=True)
class WebhookAttemptsPage:
    """A page of an endpoint's delivery attempts, newest first; pass ``next`` as ``before``."""

    __schema__: ClassVar[str] = "WebhookAttemptsPage"
    attempts: list[WebhookAttempt] = wire("attempts")
    has_more: bool = wire("hasMore")
    next: str | None = wire("next")


@dataclass(kw_only=True)
class WebhookMessage:
    """A verified Standard Webhooks delivery: ``{"type", "timestamp", "data"}``."""

    __schema__: ClassVar[str] = "WebhookMessage"
    type: str = wire("type")
    timestamp: str = wire("timestamp")
    data: CallbackEvent = wire("data")
