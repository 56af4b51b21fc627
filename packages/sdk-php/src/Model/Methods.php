<?php

declare(strict_types=1);

namespace Paygate\Model;

use Paygate\Attribute\Schema;

/** What the cash desk can accept now (`GET /gw/v1/methods`). */
#[Schema('Methods')]
final class Methods
{
    public readonly string $method;
    public readonly bool $available;
    /** Why not available, when `available` is false. */
    public readonly ?string $reason;
    /** @var list<MethodRail> */
    public readonly array $rails;

    /** @param array<string, mixed> $a */
    private function __construct(array $a)
    {
        $this->method = Read::str($a, 'method');
        $this->available = Read::bool($a, 'available');
        $this->reason = Read::nstr($a, 'reason');
        $this->rails = array_map([MethodRail::class, 'fromArray'], Read::objs($a, 'rails'));
    }

    /** @param array<string, mixed> $a */
    public static function fromArray(array $a): self
    {
        return new self($a);
    }
}
