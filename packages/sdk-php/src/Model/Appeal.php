<?php

declare(strict_types=1);

namespace Paygate\Model;

use Paygate\Attribute\Schema;

/** An appeal on an order closed without credit. `amount` is the order's USD settlement when it was opened. */
#[Schema('Appeal')]
final class Appeal
{
    public readonly string $id;
    public readonly string $orderId;
    public readonly ?string $orderRef;
    /** Open, Accepted, Rejected, Cancelled */
    public readonly string $status;
    public readonly Amount $amount;
    public readonly ?string $reason;
    public readonly ?string $comment;
    public readonly string $slaDueAt;
    public readonly string $createdAt;
    public readonly ?string $resolvedAt;
    public readonly ?string $evidenceUrl;

    /** @param array<string, mixed> $a */
    private function __construct(array $a)
    {
        $this->id = Read::str($a, 'id');
        $this->orderId = Read::str($a, 'orderId');
        $this->orderRef = Read::nstr($a, 'orderRef');
        $this->status = Read::str($a, 'status');
        $this->amount = Amount::fromArray(Read::obj($a, 'amount'));
        $this->reason = Read::nstr($a, 'reason');
        $this->comment = Read::nstr($a, 'comment');
        $this->slaDueAt = Read::str($a, 'slaDueAt');
        $this->createdAt = Read::str($a, 'createdAt');
        $this->resolvedAt = Read::nstr($a, 'resolvedAt');
        $this->evidenceUrl = Read::nstr($a, 'evidenceUrl');
    }

    /** @param array<string, mixed> $a */
    public static function fromArray(array $a): self
    {
        return new self($a);
    }
}
