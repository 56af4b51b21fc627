<?php

declare(strict_types=1);

namespace Paygate\Model;

use Paygate\Attribute\Schema;

/**
 * The body of a callback (and of a feed event, and the `data` of a webhook delivery). No fee and no
 * credited amount: read them with `orders->get()`.
 */
#[Schema('CallbackEvent')]
final class CallbackEvent
{
    /** order.completed, order.cancelled, order.appealed, order.updated */
    public readonly string $event;
    /** The order's `ord_` id. */
    public readonly string $id;
    public readonly ?string $orderRef;
    public readonly string $status;
    public readonly Amount $amount;
    public readonly SettledAmount $settled;
    /** Only when the order is Completed: what it was paid. */
    public readonly ?Amount $paidAmount;
    public readonly string $method;
    public readonly ?string $rail;
    public readonly string $occurredAt;
    /** A sandbox order (no money moved): never ship goods for it. */
    public readonly bool $sandbox;

    /** @param array<string, mixed> $a */
    private function __construct(array $a)
    {
        $this->event = Read::str($a, 'event');
        $this->id = Read::str($a, 'id');
        $this->orderRef = Read::nstr($a, 'orderRef');
        $this->status = Read::str($a, 'status');
        $this->amount = Amount::fromArray(Read::obj($a, 'amount'));
        $this->settled = SettledAmount::fromArray(Read::obj($a, 'settled'));
        $this->paidAmount = is_array($a['paidAmount'] ?? null) ? Amount::fromArray($a['paidAmount']) : null;
        $this->method = Read::str($a, 'method');
        $this->rail = Read::nstr($a, 'rail');
        $this->occurredAt = Read::str($a, 'occurredAt');
        $this->sandbox = Read::bool($a, 'sandbox');
    }

    /** @param array<string, mixed> $a */
    public static function fromArray(array $a): self
    {
        return new self($a);
    }
}
