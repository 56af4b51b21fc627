<?php

declare(strict_types=1);

namespace Paygate;

use InvalidArgumentException;

/** @internal An amount sent as a JSON number written exactly as the merchant gave it. */
final class DecimalNumber
{
    public readonly string $literal;

    public function __construct(int|float|string $amount)
    {
        if (is_int($amount)) {
            $this->literal = (string) $amount;
            return;
        }
        if (is_float($amount)) {
            if (!is_finite($amount)) {
                throw new InvalidArgumentException('Paygate: amount must be a finite number');
            }
            // serialize_precision -1: the shortest text that reads back as the same float (1500.5, not 1500.4999…).
            $this->literal = json_encode($amount, JSON_PRESERVE_ZERO_FRACTION | JSON_THROW_ON_ERROR);
            return;
        }
        $trimmed = trim($amount);
        if (preg_match('/^-?(0|[1-9]\d{0,17})(\.\d{1,20})?$/D', $trimmed) !== 1) {
            throw new InvalidArgumentException("Paygate: amount \"{$amount}\" is not a decimal number such as 1500.50");
        }
        $this->literal = $trimmed;
    }
}
