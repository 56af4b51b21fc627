<?php

declare(strict_types=1);

namespace Paygate\Model;

use Paygate\Attribute\Schema;

/** USD amount at the rate captured at creation; `rate` is units of the order currency per 1 USD. Decimal strings, 8 places. */
#[Schema('Settlement')]
final class Settlement
{
    public readonly string $amount;
    public readonly string $currency;
    public readonly string $rate;

    /** @param array<string, mixed> $a */
    private function __construct(array $a)
    {
        $this->amount = (string) ($a['amount'] ?? '');
        $this->currency = (string) ($a['currency'] ?? '');
        $this->rate = (string) ($a['rate'] ?? '');
    }

    /** @param array<string, mixed> $a */
    public static function fromArray(array $a): self
    {
        return new self($a);
    }
}
