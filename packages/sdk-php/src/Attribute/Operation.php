<?php

declare(strict_types=1);

namespace Paygate\Attribute;

use Attribute;

/**
 * The gateway operation (its `operationId` in the OpenAPI document) a client method calls, and the
 * component schema of its JSON body when it sends one: the body's fields are the method's
 * parameters not marked `#[InPath]` or `#[InQuery]`.
 */
#[Attribute(Attribute::TARGET_METHOD)]
final class Operation
{
    public function __construct(
        public readonly string $operationId,
        public readonly ?string $requestSchema = null,
    ) {
    }
}
