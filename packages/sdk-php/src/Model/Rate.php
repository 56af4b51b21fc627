<?php

declare(strict_types=1);

namespace Paygate\Model;

use Paygate\Attribute\Schema;

/** Units of the currency per 1 USD, spread included (8 places); null and `priceable` false when it cannot be priced now. */
#[Schema('Rate')]
final class Rate
{
    public readonly string $code;
    public readonly ?string $rate;
    public readonly bool $priceable;

    /** @param array<string, mixed> $a */
    private function __construct(array $a)
    {
        $this->code = Read::str($a, 'code');
        $this->rate = Read::nstr($a, 'rate');
        $this->priceable = Read::bool($a, 'priceable');
    }

    /** @param array<string, mixed> $a */
    public static function fromArray(array $a): self
    {
        return new self($a);
    }
}
