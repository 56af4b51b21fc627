<?php

declare(strict_types=1);

namespace Paygate\Model;

use Paygate\Attribute\Schema;

/** How many undelivered events a recovery queued again. */
#[Schema('WebhookRecovery')]
final class WebhookRecovery
{
    /** Events queued again: failed deliveries since then, and events the endpoint takes that it never got. */
    public readonly int $requeued;
    public readonly string $since;

    /** @param array<string, mixed> $a */
    private function __construct(array $a)
    {
        $this->requeued = Read::nint($a, 'requeued') ?? 0;
        $this->since = Read::str($a, 'since');
    }

    /** @param array<string, mixed> $a */
    public static function fromArray(array $a): self
    {
        return new self($a);
    }
}
