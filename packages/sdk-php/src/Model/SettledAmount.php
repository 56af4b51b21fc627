<?php

declare(strict_types=1);

namespace Paygate\Model;

/** A callback's `settled`: USD `value` and the captured `rate`, decimal strings of 8 places. */
final class SettledAmount
{
    public readonly string $value;
    public readonly string $currency;
    public readonly string $rate;

    /** @param array<string, mixed> $a */
    private function __construct(array $a)
    {
        $this->value = Read::str($a, 'value');
        $this->currency = Read::str($a, 'currency');
        $this->rate = Read::str($a, 'rate');
    }

    /** @param array<string, mixed> $a */
    public static function fromArray(array $a): self
    {
        return new self($a);
    }
}
