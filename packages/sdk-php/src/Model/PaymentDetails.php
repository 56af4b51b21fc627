<?php

declare(strict_types=1);

namespace Paygate\Model;

use Paygate\Attribute\Schema;

/** What the customer pays to: every key is present, keys the rail does not use are null. */
#[Schema('PaymentDetails')]
final class PaymentDetails
{
    public readonly ?string $url;
    public readonly ?string $card;
    public readonly ?string $phone;
    public readonly ?string $account;
    public readonly ?string $iban;
    public readonly ?string $upiId;
    public readonly ?string $holder;
    public readonly ?string $bank;

    /** @param array<string, mixed> $a */
    private function __construct(array $a)
    {
        $this->url = Read::nstr($a, 'url');
        $this->card = Read::nstr($a, 'card');
        $this->phone = Read::nstr($a, 'phone');
        $this->account = Read::nstr($a, 'account');
        $this->iban = Read::nstr($a, 'iban');
        $this->upiId = Read::nstr($a, 'upiId');
        $this->holder = Read::nstr($a, 'holder');
        $this->bank = Read::nstr($a, 'bank');
    }

    /** @param array<string, mixed> $a */
    public static function fromArray(array $a): self
    {
        return new self($a);
    }
}
