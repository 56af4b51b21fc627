<?php

declare(strict_types=1);

namespace Paygate\Model;

use Paygate\Attribute\Schema;

/** A webhook endpoint (Standard Webhooks) of the merchant; its secret is only in the answers that make or rotate it. */
#[Schema('WebhookEndpoint')]
class WebhookEndpoint
{
    /** `whe_` id. */
    public readonly string $id;
    public readonly string $url;
    /** @var list<string> event kinds, or `["*"]` for every kind */
    public readonly array $events;
    /** @var list<string>|null desk ids, or null for every desk of the merchant */
    public readonly ?array $desks;
    public readonly ?string $description;
    public readonly bool $enabled;
    /** Why it is disabled: by the merchant, a `410 Gone`, or five days of failures; null while enabled. */
    public readonly ?string $disabledReason;
    public readonly string $createdAt;
    public readonly string $updatedAt;

    /** @param array<string, mixed> $a */
    protected function __construct(array $a)
    {
        $this->id = Read::str($a, 'id');
        $this->url = Read::str($a, 'url');
        $this->events = Read::nstrs($a, 'events') ?? [];
        $this->desks = Read::nstrs($a, 'desks');
        $this->description = Read::nstr($a, 'description');
        $this->enabled = Read::bool($a, 'enabled');
        $this->disabledReason = Read::nstr($a, 'disabledReason');
        $this->createdAt = Read::str($a, 'createdAt');
        $this->updatedAt = Read::str($a, 'updatedAt');
    }

    /** @param array<string, mixed> $a */
    public static function fromArray(array $a): static
    {
        return new static($a);
    }
}
