<?php

declare(strict_types=1);

namespace Paygate\Model;

use Paygate\Attribute\Schema;

/** A `webhook.test` event queued for one endpoint; its attempt shows in the endpoint's log. */
#[Schema('WebhookTestEvent')]
final class WebhookTestEvent
{
    /** The `webhook-id` of the test delivery. */
    public readonly string $eventId;

    /** @param array<string, mixed> $a */
    private function __construct(array $a)
    {
        $this->eventId = Read::str($a, 'eventId');
    }

    /** @param array<string, mixed> $a */
    public static function fromArray(array $a): self
    {
        return new self($a);
    }
}
