<?php

declare(strict_types=1);

namespace Paygate\Model;

use Paygate\Attribute\Schema;

/** A page of an endpoint's attempts, newest first; pass `next` as `before` for older ones. */
#[Schema('WebhookAttemptsPage')]
final class WebhookAttemptsPage
{
    /** @var list<WebhookAttempt> */
    public readonly array $attempts;
    public readonly bool $hasMore;
    public readonly ?string $next;

    /** @param array<string, mixed> $a */
    private function __construct(array $a)
    {
        $this->attempts = array_map([WebhookAttempt::class, 'fromArray'], Read::objs($a, 'attempts'));
        $this->hasMore = Read::bool($a, 'hasMore');
        $this->next = Read::nstr($a, 'next');
    }

    /** @param array<string, mixed> $a */
    public static function fromArray(array $a): self
    {
        return new self($a);
    }
}
