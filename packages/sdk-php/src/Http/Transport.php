<?php

declare(strict_types=1);

namespace Paygate\Http;

/** Sends one HTTP request. Replaceable for tests, proxies and custom stacks. */
interface Transport
{
    /**
     * @param array<string, string> $headers
     * @param string|null $body the exact bytes to send (they are the bytes that were signed)
     * @param float $timeoutSeconds for the whole exchange
     * @throws NetworkException when no complete answer arrived
     */
    public function send(string $method, string $url, array $headers, ?string $body, float $timeoutSeconds): Response;
}
