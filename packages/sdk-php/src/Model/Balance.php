<?php

declare(strict_types=1);

namespace Paygate\Model;

use Paygate\Attribute\Schema;

/** The merchant's balance, shared by its desks: USD, 8 places; `mode` is `sandbox` or `live`. */
#[Schema('Balance')]
final class Balance
{
    public readonly string $currency;
    public readonly string $available;
    public readonly string $mode;

    /** @param array<string, mixed> $a */
    private function __construct(array $a)
    {
        $this->currency = Read::str($a, 'currency');
        $this->available = Read::str($a, 'available');
        $this->mode = Read::str($a, 'mode');
    }

    /** @param array<string, mixed> $a */
    public static function fromArray(array $a): self
    {
        return new self($a);
    }
}
