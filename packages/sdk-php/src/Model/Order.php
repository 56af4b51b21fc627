<?php

declare(strict_types=1);

namespace Paygate\Model;

use Paygate\Attribute\Schema;

/** An order as read (`GET /gw/v1/orders/{id}`, and the answer of cancel): the created fields and these. */
#[Schema('Order')]
final class Order extends OrderCreated
{
    /** For display only; branch on `status`. */
    public readonly string $subStatus;
    public readonly ?string $payerReference;
    public readonly Commission $commission;
    public readonly Credited $credited;
    public readonly ?string $cancelReason;
    public readonly ?string $finishedAt;
    public readonly ?string $description;
    /** What a completed order was paid, in `currency` (2 places); null until it completes. */
    public readonly ?string $paidAmount;

    /** @param array<string, mixed> $a */
    protected function __construct(array $a)
    {
        parent::__construct($a);
        $this->subStatus = Read::str($a, 'subStatus');
        $this->payerReference = Read::nstr($a, 'payerReference');
        $this->commission = Commission::fromArray(Read::obj($a, 'commission'));
        $this->credited = Credited::fromArray(Read::obj($a, 'credited'));
        $this->cancelReason = Read::nstr($a, 'cancelReason');
        $this->finishedAt = Read::nstr($a, 'finishedAt');
        $this->description = Read::nstr($a, 'description');
        $this->paidAmount = Read::nstr($a, 'paidAmount');
    }
}
