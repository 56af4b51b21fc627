<?php

declare(strict_types=1);

namespace Paygate\Tests\Support;

use Closure;
use Paygate\Http\CurlTransport;
use Paygate\Http\Response;
use Paygate\Http\Transport;

/**
 * The real transport with a window on it: counts what goes out and keeps what comes back, and can
 * change the body after it was signed, as a proxy between the SDK and the gateway might.
 */
final class RecordingTransport implements Transport
{
    /** @var list<array{method: string, url: string, headers: array<string, string>, body: ?string, status: int, response: string}> */
    public array $exchanges = [];

    /** @param (Closure(string): string)|null $rewriteBody */
    public function __construct(private readonly ?Closure $rewriteBody = null)
    {
    }

    public function send(string $method, string $url, array $headers, ?string $body, float $timeoutSeconds): Response
    {
        if ($this->rewriteBody !== null && $body !== null) {
            $body = ($this->rewriteBody)($body);
        }
        $response = (new CurlTransport())->send($method, $url, $headers, $body, $timeoutSeconds);
        $this->exchanges[] = ['method' => $method, 'url' => $url, 'headers' => $headers, 'body' => $body, 'status' => $response->status, 'response' => $response->body];
        return $response;
    }
}
