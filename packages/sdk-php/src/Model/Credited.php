<?php

declare(strict_types=1);

namespace Paygate\Model;

use Paygate\Attribute\Schema;

/** What the balance was credited, USD (8 places); zero until completion. */
#[Schema('Credited')]
final class Credited
{
    public readonly string $amount;
    public readonly string $currency;

    /** @param array<string, mixed> $a */
    private function __construct(array $a)
    {
        $this->amount = Read::str($a, 'amount');
        $this->currency = Read::str($a, 'currency');
    }

    /** @param array<string, mixed> $a */
    public static function fromArray(array $a): self
    {
        return new self($a);
    }
}
