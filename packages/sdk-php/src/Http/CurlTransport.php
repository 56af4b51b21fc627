<?php

declare(strict_types=1);

namespace Paygate\Http;

/** The default transport: ext-curl, redirects not followed, no `Expect: 100-continue`. */
final class CurlTransport implements Transport
{
    public function send(string $method, string $url, array $headers, ?string $body, float $timeoutSeconds): Response
    {
        $handle = curl_init();
        if ($handle === false) {
            throw new NetworkException('curl_init failed');
        }
        $lines = ['Expect:'];
        foreach ($headers as $name => $value) {
            $lines[] = $name . ': ' . $value;
        }
        $received = [];
        $timeoutMs = max(1, (int) round($timeoutSeconds * 1000));
        curl_setopt_array($handle, [
            CURLOPT_URL => $url,
            CURLOPT_CUSTOMREQUEST => $method,
            CURLOPT_HTTPHEADER => $lines,
            CURLOPT_RETURNTRANSFER => true,
            CURLOPT_FOLLOWLOCATION => false,
            CURLOPT_TIMEOUT_MS => $timeoutMs,
            CURLOPT_CONNECTTIMEOUT_MS => $timeoutMs,
            CURLOPT_NOSIGNAL => true,
            CURLOPT_HEADERFUNCTION => static function ($h, string $line) use (&$received): int {
                // A new status line (after a 1xx) starts the headers afresh.
                if (preg_match('#^HTTP/\S+\s+\d{3}#', $line) === 1) {
                    $received = [];
                } elseif (str_contains($line, ':')) {
                    [$name, $value] = explode(':', $line, 2);
                    $received[strtolower(trim($name))] = trim($value);
                }
                return strlen($line);
            },
        ]);
        if ($body !== null) {
            curl_setopt($handle, CURLOPT_POSTFIELDS, $body);
        } elseif ($method === 'POST' || $method === 'PATCH') {
            curl_setopt($handle, CURLOPT_POSTFIELDS, '');
        }
        $text = curl_exec($handle);
        if ($text === false || !is_string($text)) {
            $error = curl_error($handle) ?: 'request failed';
            curl_close($handle);
            throw new NetworkException($error);
        }
        $status = (int) curl_getinfo($handle, CURLINFO_RESPONSE_CODE);
        curl_close($handle);
        return new Response($status, $received, $text);
    }
}
