<?php

declare(strict_types=1);

namespace Paygate\Model;

use Paygate\Attribute\Schema;

/** The widest amount window any provider offers, in the customer currency; 0 means unbounded. */
#[Schema('CurrencyWindow')]
final class CurrencyWindow
{
    public readonly string $code;
    public readonly int|float $min;
    public readonly int|float $max;

    /** @param array<string, mixed> $a */
    private function __construct(array $a)
    {
        $this->code = Read::str($a, 'code');
        $this->min = is_int($a['min'] ?? null) || is_float($a['min'] ?? null) ? $a['min'] : 0;
        $this->max = is_int($a['max'] ?? null) || is_float($a['max'] ?? null) ? $a['max'] : 0;
    }

    /** @param array<string, mixed> $a */
    public static function fromArray(array $a): self
    {
        return new self($a);
    }
}
