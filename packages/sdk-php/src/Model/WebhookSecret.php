<?php

declare(strict_types=1);

namespace Paygate\Model;

use Paygate\Attribute\Schema;

/** The new secret of a rotation; the old one keeps signing beside it for 24 hours. */
#[Schema('WebhookSecret')]
final class WebhookSecret
{
    public readonly string $secret;

    /** @param array<string, mixed> $a */
    private function __construct(array $a)
    {
        $this->secret = Read::str($a, 'secret');
    }

    /** @param array<string, mixed> $a */
    public static function fromArray(array $a): self
    {
        return new self($a);
    }
}
