<?php

declare(strict_types=1);

namespace Paygate\Model;

use Paygate\Attribute\Schema;

/** A new webhook endpoint with its signing secret (`whsec_…`), shown in this answer only: keep it now. */
#[Schema('WebhookEndpointCreated')]
final class WebhookEndpointCreated extends WebhookEndpoint
{
    public readonly string $secret;

    /** @param array<string, mixed> $a */
    protected function __construct(array $a)
    {
        parent::__construct($a);
        $this->secret = Read::str($a, 'secret');
    }
}
