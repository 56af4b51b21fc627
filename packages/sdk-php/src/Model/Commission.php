<?php

declare(strict_types=1);

namespace Paygate\Model;

use Paygate\Attribute\Schema;

/** The fee: `rate` percent (4 places), `amount` USD (8 places); zero until the order completes. */
#[Schema('Commission')]
final class Commission
{
    public readonly string $rate;
    public readonly string $amount;
    public readonly string $currency;

    /** @param array<string, mixed> $a */
    private function __construct(array $a)
    {
        $this->rate = Read::str($a, 'rate');
        $this->amount = Read::str($a, 'amount');
        $this->currency = Read::str($a, 'currency');
    }

    /** @param array<string, mixed> $a */
    public static function fromArray(array $a): self
    {
        return new self($a);
    }
}
