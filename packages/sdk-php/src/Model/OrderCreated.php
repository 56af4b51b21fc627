<?php

declare(strict_types=1);

namespace Paygate\Model;

use Paygate\Attribute\Schema;

/**
 * An order as created (`POST /gw/v1/orders`). `orderRef` is always null here. Money is decimal
 * strings: `amount` 2 places in `currency`; never parse it into a float for arithmetic.
 */
#[Schema('OrderCreated')]
class OrderCreated
{
    public readonly string $id;
    public readonly ?string $orderRef;
    public readonly string $amount;
    public readonly string $currency;
    public readonly Settlement $settled;
    public readonly string $method;
    public readonly ?string $rail;
    public readonly string $direction;
    /** Created, Payed, Completed, Canceled, Dispute, CompletedOnDispute, WaitingPayment */
    public readonly string $status;
    public readonly PaymentDetails $payment;
    public readonly string $createdAt;
    public readonly string $expiresAt;
    /** A sandbox order: paid by simulation, no money moved; never ship goods for it. */
    public readonly bool $sandbox;
    /** The gateway's payment page for this order: send the customer here. */
    public readonly string $payPageUrl;

    /** @param array<string, mixed> $a */
    protected function __construct(array $a)
    {
        $this->id = Read::str($a, 'id');
        $this->orderRef = Read::nstr($a, 'orderRef');
        $this->amount = Read::str($a, 'amount');
        $this->currency = Read::str($a, 'currency');
        $this->settled = Settlement::fromArray(Read::obj($a, 'settled'));
        $this->method = Read::str($a, 'method');
        $this->rail = Read::nstr($a, 'rail');
        $this->direction = Read::str($a, 'direction');
        $this->status = Read::str($a, 'status');
        $this->payment = PaymentDetails::fromArray(Read::obj($a, 'payment'));
        $this->createdAt = Read::str($a, 'createdAt');
        $this->expiresAt = Read::str($a, 'expiresAt');
        $this->sandbox = Read::bool($a, 'sandbox');
        $this->payPageUrl = Read::str($a, 'payPageUrl');
    }

    /** @param array<string, mixed> $a */
    public static function fromArray(array $a): static
    {
        return new static($a);
    }
}
