<?php

declare(strict_types=1);

namespace Paygate\Model;

/** A decimal string `value` in `currency` (an appeal's amount, a callback's amount and paid amount). */
final class Amount
{
    public readonly string $value;
    public readonly string $currency;

    /** @param array<string, mixed> $a */
    private function __construct(array $a)
    {
        $this->value = Read::str($a, 'value');
        $this->currency = Read::str($a, 'currency');
    }

    /** @param array<string, mixed> $a */
    public static function fromArray(array $a): self
    {
        return new self($a);
    }
}
