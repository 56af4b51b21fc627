<?php

declare(strict_types=1);

namespace Paygate\Model;

use Paygate\Attribute\Schema;

/** One page of the events feed; pass `next` as `after` while `hasMore`. */
#[Schema('EventsPage')]
final class EventsPage
{
    /** @var list<Event> */
    public readonly array $events;
    public readonly bool $hasMore;
    public readonly ?string $next;

    /** @param array<string, mixed> $a */
    private function __construct(array $a)
    {
        $this->events = array_map([Event::class, 'fromArray'], Read::objs($a, 'events'));
        $this->hasMore = Read::bool($a, 'hasMore');
        $this->next = Read::nstr($a, 'next');
    }

    /** @param array<string, mixed> $a */
    public static function fromArray(array $a): self
    {
        return new self($a);
    }
}
