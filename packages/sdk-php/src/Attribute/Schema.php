<?php

declare(strict_types=1);

namespace Paygate\Attribute;

use Attribute;

/** The OpenAPI component schema a result class stands for; its public properties are the schema's fields. */
#[Attribute(Attribute::TARGET_CLASS)]
final class Schema
{
    public function __construct(public readonly string $name)
    {
    }
}
