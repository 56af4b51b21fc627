<?php

declare(strict_types=1);

namespace Paygate\Model;

use Paygate\Attribute\Schema;

/** Rates of the currencies the desk allows (`GET /gw/v1/rates`); `settlement` is always USD. */
#[Schema('Rates')]
final class Rates
{
    public readonly string $settlement;
    /** @var list<Rate> */
    public readonly array $rates;

    /** @param array<string, mixed> $a */
    private function __construct(array $a)
    {
        $this->settlement = Read::str($a, 'settlement');
        $this->rates = array_map([Rate::class, 'fromArray'], Read::objs($a, 'rates'));
    }

    /** @param array<string, mixed> $a */
    public static function fromArray(array $a): self
    {
        return new self($a);
    }
}
