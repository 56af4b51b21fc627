<?php

declare(strict_types=1);

namespace Paygate\Http;

/** An HTTP answer as it arrived. */
final class Response
{
    /**
     * @param array<string, string> $headers lower-case names; the last value of a repeated header
     */
    public function __construct(
        public readonly int $status,
        public readonly array $headers,
        public readonly string $body,
    ) {
    }

    public function header(string $name): ?string
    {
        return $this->headers[strtolower($name)] ?? null;
    }
}
