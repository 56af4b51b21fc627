<?php

declare(strict_types=1);

namespace Paygate\Model;

use ArrayIterator;
use Countable;
use IteratorAggregate;
use Paygate\Attribute\Schema;
use Traversable;

/**
 * The merchant's webhook endpoints, oldest first, without secrets. Iterate over it directly or
 * read `endpoints`.
 *
 * @implements IteratorAggregate<int, WebhookEndpoint>
 */
#[Schema('WebhookEndpointList')]
final class WebhookEndpointList implements IteratorAggregate, Countable
{
    /** @var list<WebhookEndpoint> */
    public readonly array $endpoints;

    /** @param array<mixed> $a */
    private function __construct(array $a)
    {
        // A bare list is read too.
        $items = array_is_list($a) ? array_values(array_filter($a, 'is_array')) : Read::objs($a, 'endpoints');
        $this->endpoints = array_map([WebhookEndpoint::class, 'fromArray'], $items);
    }

    /** @param array<mixed> $a */
    public static function fromArray(array $a): self
    {
        return new self($a);
    }

    public function getIterator(): Traversable
    {
        return new ArrayIterator($this->endpoints);
    }

    public function count(): int
    {
        return count($this->endpoints);
    }
}
