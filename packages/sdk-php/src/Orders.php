<?php

declare(strict_types=1);

namespace Paygate;

use Closure;
use Paygate\Attribute\InPath;
use Paygate\Attribute\Operation;
use Paygate\Model\Order;
use Paygate\Model\OrderCreated;

/** Orders of the desk: `$client->orders`. */
final class Orders
{
    /** @param Closure(string, string, array<string, string|null>, ?string, RetryPolicy): array<mixed> $call */
    public function __construct(private readonly Closure $call)
    {
    }

    /**
     * Creates an order. With an `orderRef` the call is idempotent for an hour, so it is retried on
     * network failures and `503 NO_AVAILABLE_METHOD` with back-off; without one it is sent once.
     *
     * @param int|float|string $amount customer amount in `currency`; a decimal string (`'1500.50'`)
     *                                 is sent as the JSON number it spells, digit for digit
     * @param string|null $currency ISO 4217, default RUB
     * @param string|null $rail may be omitted when the desk allows exactly one
     * @param string|null $direction always `In` (the default)
     * @param string|null $orderRef your reference, up to 255 characters
     * @param string|null $notifyUrl callback URL for this order (falls back to the desk's)
     * @param string|null $operator mobile operator, for MobileCommerce rail Phone
     * @param string|null $targetBank reserved; accepted and ignored
     * @param int|null $lifetimeMinutes 1 to 1440, default 15
     */
    #[Operation('createOrder', 'CreateOrderRequest')]
    public function create(
        int|float|string $amount,
        ?string $currency = null,
        ?string $rail = null,
        ?string $direction = null,
        ?string $orderRef = null,
        ?string $notifyUrl = null,
        ?string $successUrl = null,
        ?string $failUrl = null,
        ?string $backUrl = null,
        ?string $operator = null,
        ?string $targetBank = null,
        ?int $lifetimeMinutes = null,
    ): OrderCreated {
        $body = Json::object([
            'amount' => new DecimalNumber($amount),
            'currency' => $currency,
            'rail' => $rail,
            'direction' => $direction,
            'orderRef' => $orderRef,
            'notifyUrl' => $notifyUrl,
            'successUrl' => $successUrl,
            'failUrl' => $failUrl,
            'backUrl' => $backUrl,
            'operator' => $operator,
            'targetBank' => $targetBank,
            'lifetimeMinutes' => $lifetimeMinutes,
        ]);
        $retry = $orderRef !== null && $orderRef !== '' ? RetryPolicy::NetworkAnd503 : RetryPolicy::Never;
        return OrderCreated::fromArray(($this->call)('POST', '/gw/v1/orders', [], $body, $retry));
    }

    /** Reads an order by its `ord_` id or by your `orderRef` (the newest with it). */
    #[Operation('getOrder')]
    public function get(#[InPath] string $id): Order
    {
        return Order::fromArray(($this->call)('GET', '/gw/v1/orders/' . rawurlencode($id), [], null, RetryPolicy::Network));
    }

    /**
     * Cancels an unpaid order and answers it as it now stands; a cancelled one is a no-op, a
     * completed one `409 ORDER_ALREADY_COMPLETED`.
     */
    #[Operation('cancelOrder', 'CancelOrderRequest')]
    public function cancel(#[InPath] string $id, ?string $reason = null): Order
    {
        $body = Json::object(['reason' => $reason]);
        return Order::fromArray(($this->call)('POST', '/gw/v1/orders/' . rawurlencode($id) . '/cancel', [], $body, RetryPolicy::Never));
    }
}
