<?php

declare(strict_types=1);

namespace Paygate\Model;

use Paygate\Attribute\Schema;

/** The callback of a feed event: pending, delivered, rejected, failed or suppressed. */
#[Schema('EventDelivery')]
final class EventDelivery
{
    public readonly string $state;
    public readonly int $attempts;
    public readonly ?string $nextAttemptAt;
    public readonly ?string $finishedAt;

    /** @param array<string, mixed> $a */
    private function __construct(array $a)
    {
        $this->state = Read::str($a, 'state');
        $this->attempts = Read::nint($a, 'attempts') ?? 0;
        $this->nextAttemptAt = Read::nstr($a, 'nextAttemptAt');
        $this->finishedAt = Read::nstr($a, 'finishedAt');
    }

    /** @param array<string, mixed> $a */
    public static function fromArray(array $a): self
    {
        return new self($a);
    }
}
